package wildfire

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestHourOf(t *testing.T) {
	cst := time.FixedZone("CST", 8*3600)
	cases := []struct {
		t    time.Time
		want Hour
	}{
		{time.Date(2018, 1, 1, 0, 0, 0, 0, cst), 0},
		{time.Date(2018, 1, 1, 0, 59, 59, 0, cst), 0},
		{time.Date(2018, 1, 2, 1, 0, 0, 0, cst), 25},
		{time.Unix(Epoch2018+70000*3600, 0), 70000},
		{time.UnixMilli(1795392252609), 77960}, // §14's server_time, 2026-11-23
	}
	for _, k := range cases {
		if got := HourOf(k.t); got != k.want {
			t.Errorf("HourOf(%s) = %d, want %d", k.t, got, k.want)
		}
	}
	if d := HourNow() - HourOf(time.Now()); d < 0 || d > 1 {
		t.Error("HourNow")
	}
	// The fourth prefix byte is always 0, as the server writes it.
	if got := AppendHourPrefix(nil, 0x01020304); !bytes.Equal(got, []byte{4, 3, 2, 0}) {
		t.Errorf("prefix %x", got)
	}
}

func TestCheckHour(t *testing.T) {
	for _, k := range []struct {
		h, now Hour
		ok     bool
	}{{100, 100, true}, {100, 124, true}, {100, 125, false}, {124, 100, true}, {125, 100, false},
		{-2147483648, 2147483647, false}, {2147483647, -2147483648, false}} {
		if err := CheckHour(k.h, k.now); (err == nil) != k.ok {
			t.Errorf("CheckHour(%d, %d) = %v", k.h, k.now, err)
		}
	}
}

func TestNewCipher(t *testing.T) {
	if _, err := NewCipher("short"); !errors.Is(err, ErrShortSecret) {
		t.Errorf("short secret: %v", err)
	}
	if _, err := NewCipher256("1b4e28ba-2fa1-11d2-883f"); !errors.Is(err, ErrShortSecret) {
		t.Errorf("short AES-256 secret: %v", err)
	}
	// Only the first 16 characters matter; a non-ASCII character counts as
	// one UTF-16 unit, its low byte taken.
	a, _ := NewCipher("0123456789abcdefXXXX")
	b, _ := NewCipher("0123456789abcdefYY")
	if !bytes.Equal(a.Encrypt(1, []byte("x")), b.Encrypt(1, []byte("x"))) {
		t.Error("characters after 16 changed the key")
	}
	u, _ := NewCipher("\u0130123456789abcdef") // İ = U+0130 → 0x30 = '0'
	if !bytes.Equal(a.Encrypt(1, []byte("x")), u.Encrypt(1, []byte("x"))) {
		t.Error("UTF-16 low byte")
	}
	// Root key by hand: AES-128-CBC, IV = key.
	key := rootKey[:16]
	blk, _ := aes.NewCipher(key)
	plain := append(AppendHourPrefix(nil, 7), "hello"...)
	for len(plain) < 16 {
		plain = append(plain, 7)
	}
	want := make([]byte, 16)
	cipher.NewCBCEncrypter(blk, key).CryptBlocks(want, plain)
	equalHex(t, "root", RootCipher().Encrypt(7, []byte("hello")), want)
}

func TestDecryptErrors(t *testing.T) {
	c := RootCipher()
	good := c.Encrypt(5, []byte("hello"))
	flip := append([]byte(nil), good...)
	flip[len(flip)-1] ^= 0xff
	cases := []struct {
		in   []byte
		want error
	}{
		{nil, ErrCipherText},
		{good[:15], ErrCipherText},
		{flip, ErrPadding},
		{c.Encrypt(5, nil), ErrEmptyPlaintext}, // hour only: the server returns null
	}
	for _, k := range cases {
		if data, _, err := c.Open(k.in); !errors.Is(err, k.want) || data != nil {
			t.Errorf("Open(%x) = %x, %v; want %v", k.in, data, err, k.want)
		}
	}
	// A last byte 0 or over 16 is bad padding.
	blk, _ := aes.NewCipher(rootKey[:16])
	for _, last := range []byte{0, 17, 255} {
		p := bytes.Repeat([]byte{last}, 16)
		ct := make([]byte, 16)
		cipher.NewCBCEncrypter(blk, rootKey[:16]).CryptBlocks(ct, p)
		if _, _, err := c.Open(ct); !errors.Is(err, ErrPadding) {
			t.Errorf("last byte %d: %v", last, err)
		}
	}
}

func TestAppendEncrypt(t *testing.T) {
	c, _ := NewCipher("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
	for _, n := range []int{1, 11, 12, 13, 27, 28, 1000} {
		data := bytes.Repeat([]byte{'d'}, n)
		want := c.Encrypt(9, data)
		if len(want) != c.EncryptedLen(n) || len(want)%16 != 0 || len(want) < n+5 {
			t.Fatalf("n=%d: %d bytes", n, len(want))
		}
		got := c.AppendEncrypt([]byte("pre"), 9, data)
		if string(got[:3]) != "pre" || !bytes.Equal(got[3:], want) {
			t.Errorf("n=%d: append differs", n)
		}
		back, h, err := c.Open(want)
		if err != nil || h != 9 || !bytes.Equal(back, data) {
			t.Errorf("n=%d: %v", n, err)
		}
	}
}

func TestTokenErrors(t *testing.T) {
	for _, k := range []struct {
		tok  string
		want error
	}{
		{"!!", ErrBadBase64},
		{"", ErrCipherText},
		{"AAAA", ErrCipherText},
		{"AAAAAAAAAAA=", ErrPadding},
		{firstBlock(MakeDESToken("testim", 1, "u1")), ErrPadding}, // "testim|1": no padding
	} {
		if _, _, err := ParseDESToken(k.tok, "testim"); !errors.Is(err, k.want) {
			t.Errorf("ParseDESToken(%q) = %v, want %v", k.tok, err, k.want)
		}
	}
	// "testim|" then no second separator, or a non-numeric time.
	for _, core := range []string{"", "123", "abc|u1"} {
		if _, _, err := ParseDESToken(desEncrypt("testim|"+core), "testim"); !errors.Is(err, ErrBadToken) {
			t.Errorf("core %q: %v", core, err)
		}
	}
}

// firstBlock keeps a DES token's first 8-byte block.
func firstBlock(tok string) string {
	raw, _ := base64.StdEncoding.DecodeString(tok)
	return base64.StdEncoding.EncodeToString(raw[:8])
}

func TestAdminSignCheck(t *testing.T) {
	now := int64(1700000000000)
	ts := "1699999000000"
	sign := AdminSign("n1", "sec", ts)
	cases := []struct {
		nonce, ts, sign string
		nowMs           int64
		noCheck         bool
		want            ErrorCode
	}{
		{"n1", ts, sign, now, false, CodeSuccess},
		{"", ts, sign, now, false, CodeAPINotSigned},
		{"n1", "", sign, now, false, CodeAPINotSigned},
		{"n1", ts, "", now, false, CodeAPINotSigned},
		{"n1", "12x", AdminSign("n1", "sec", "12x"), now, false, CodeAPINotSigned},
		{"n1", ts, sign, now + AdminSignMaxAgeMs + 1, false, CodeSignExpired},
		{"n1", ts, sign, now + AdminSignMaxAgeMs*10, true, CodeSuccess},
		{"n1", "9999999999999", AdminSign("n1", "sec", "9999999999999"), now, false, CodeSuccess}, // future passes
		{"n1", ts, "00" + sign[2:], now, false, CodeAuthFailure},
	}
	for _, k := range cases {
		if got := CheckAdminSign(k.nonce, k.ts, k.sign, "sec", k.nowMs, k.noCheck); got != k.want {
			t.Errorf("%+v: %s", k, got)
		}
	}
	h := http.Header{}
	SetAdminHeaders(h, "76616", DefaultAdminSecret, 1558350862502)
	n, s, g := AdminHeaderValues(h)
	if n != "76616" || s != "1558350862502" || g != "b98f9b0717f59febccf1440067a7f50d9b31bdde" {
		t.Errorf("headers %v", h)
	}
	// A server-side request has canonical keys: read them too.
	h2 := http.Header{}
	h2.Set("Nonce", "a")
	h2.Set("Timestamp", "1")
	h2.Set("Sign", "s")
	if n, s, g := AdminHeaderValues(h2); n != "a" || s != "1" || g != "s" {
		t.Errorf("canonical headers: %q %q %q", n, s, g)
	}
}

func TestGunzip(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(bytes.Repeat([]byte("abc"), 1000))
	zw.Close()
	out, err := Gunzip(b.Bytes(), 3000)
	if err != nil || len(out) != 3000 {
		t.Fatalf("%d %v", len(out), err)
	}
	if _, err := Gunzip(b.Bytes(), 2999); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit: %v", err)
	}
	if _, err := Gunzip([]byte("nope"), 10); err == nil {
		t.Error("not gzip accepted")
	}
}

func TestHTTPHeaderValue(t *testing.T) {
	v := EncodeHTTPHeader("c1", 70000)
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := RootCipher().Decrypt(raw, 70000)
	if err != nil || string(tok) != "c1" {
		t.Errorf("%q %v", tok, err)
	}
}
