package wukongim

import (
	"bytes"
	"encoding/base64"
	"errors"
	"regexp"
	"testing"
)

func testCipher(t *testing.T) *Cipher {
	t.Helper()
	c, err := NewCipher([]byte("8e65549ac3e59ba4"), []byte("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDecryptErrors(t *testing.T) {
	c := testCipher(t)
	good := c.Encrypt([]byte("hello"))
	raw, _ := base64.StdEncoding.DecodeString(string(good))
	flipLast := append([]byte(nil), raw...)
	flipLast[len(flipLast)-1] ^= 0xff // garbles the last block, so its padding
	cases := []struct {
		in   []byte
		want error
	}{
		{[]byte("not base64!"), ErrBadBase64},
		{[]byte(""), ErrCipherText},
		{[]byte(base64.StdEncoding.EncodeToString(raw[:15])), ErrCipherText},
		{[]byte(base64.StdEncoding.EncodeToString(flipLast)), ErrPadding},
	}
	for _, k := range cases {
		if _, err := c.Decrypt(k.in); !errors.Is(err, k.want) {
			t.Errorf("Decrypt(%q) = %v, want %v", k.in, err, k.want)
		}
	}
	// A block whose plaintext ends in 0x00 or a byte over 16 is bad padding.
	for _, last := range []byte{0, 17, 255} {
		plain := bytes.Repeat([]byte{last}, 16)
		ct := c.AppendEncrypt(nil, plain) // two blocks: plain, then a full pad block
		rawCT, _ := base64.StdEncoding.DecodeString(string(ct))
		if _, err := c.Decrypt([]byte(base64.StdEncoding.EncodeToString(rawCT[:16]))); !errors.Is(err, ErrPadding) {
			t.Errorf("last byte %d: %v", last, err)
		}
	}
}

func TestAppendEncrypt(t *testing.T) {
	c := testCipher(t)
	for _, n := range []int{0, 5, 16, 31, 32, 1000} {
		plain := bytes.Repeat([]byte{'p'}, n)
		want := c.Encrypt(plain)
		if len(want) != base64.StdEncoding.EncodedLen((n/16+1)*16) {
			t.Fatalf("len %d: ciphertext text %d bytes", n, len(want))
		}
		got := c.AppendEncrypt([]byte("pre"), plain)
		if string(got[:3]) != "pre" || !bytes.Equal(got[3:], want) {
			t.Fatalf("len %d: AppendEncrypt differs", n)
		}
		// plain may be the spare capacity of dst.
		buf := make([]byte, 0, 4096)
		buf = append(buf, plain...)
		got = c.AppendEncrypt(buf[:0], buf[:n])
		if !bytes.Equal(got, want) {
			t.Fatalf("len %d: overlapping AppendEncrypt differs", n)
		}
	}
}

func TestKeysAndSecrets(t *testing.T) {
	seed := bytes.Repeat([]byte{7}, 32)
	a, err := GenerateKey(bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewKeyPairFromPrivate(seed)
	if a.PublicKeyBase64() != b.PublicKeyBase64() {
		t.Fatal("GenerateKey does not use its reader")
	}
	if _, err := GenerateKey(bytes.NewReader(seed[:31])); err == nil {
		t.Fatal("short reader accepted")
	}
	if _, err := NewKeyPairFromPrivate(seed[:31]); err == nil {
		t.Fatal("31-byte private key accepted")
	}
	r1, _ := GenerateKey(nil)
	r2, _ := GenerateKey(nil)
	if r1.PublicKeyBase64() == r2.PublicKeyBase64() {
		t.Fatal("random keys repeat")
	}
	// Peer keys: bad base64, short, a low-order point; longer is cut to 32.
	long := base64.StdEncoding.EncodeToString(append(r2.PublicKey(), 1, 2, 3))
	s1, err := r1.SharedSecret(long)
	s2, _ := r2.SharedSecret(r1.PublicKeyBase64())
	if err != nil || !bytes.Equal(s1, s2) {
		t.Fatalf("long peer key: %v", err)
	}
	for _, bad := range []string{"!!", base64.StdEncoding.EncodeToString(make([]byte, 31)), ""} {
		if _, err := r1.SharedSecret(bad); !errors.Is(err, ErrPeerKey) {
			t.Errorf("peer key %q: %v", bad, err)
		}
	}
	if _, err := r1.SharedSecret(base64.StdEncoding.EncodeToString(make([]byte, 32))); err == nil {
		t.Error("all-zero peer key gave a secret")
	}
	if _, err := r1.Cipher(r2.PublicKeyBase64(), "short"); err == nil {
		t.Error("5-byte salt accepted")
	}
}

func TestNewSalt(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-zA-Z]{16}$`)
	seen := map[string]bool{}
	for range 100 {
		s, err := NewSalt(nil)
		if err != nil || !re.MatchString(s) || seen[s] {
			t.Fatalf("salt %q %v", s, err)
		}
		seen[s] = true
	}
	// Bytes >= 248 are skipped, not folded onto the first letters.
	src := append(bytes.Repeat([]byte{255}, 40), bytes.Repeat([]byte{61}, 64)...)
	s, err := NewSalt(bytes.NewReader(src))
	if err != nil || s != "ZZZZZZZZZZZZZZZZ" {
		t.Fatalf("salt %q %v", s, err)
	}
	if _, err := NewSalt(bytes.NewReader(nil)); err == nil {
		t.Fatal("empty reader accepted")
	}
}

func TestMsgKeyAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	c := testCipher(t)
	sign := []byte("1cmn-1u21Xh10EPPP5rWxvUSjeRjAuIOvBiFp/tITLUMwANS1ecI=")
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = c.AppendEncrypt(buf[:0], sign) }); n > 2 {
		t.Errorf("AppendEncrypt allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.MsgKey(sign) }); n > 3 {
		t.Errorf("MsgKey allocates %v times", n)
	}
}
