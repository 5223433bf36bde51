package wildfire

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/imbench/imbench/wire/internal/cbc"
)

// Errors of the crypto layer (§3).
var (
	ErrCipherText       = errors.New("wildfire: ciphertext is not a positive multiple of the block size")
	ErrPadding          = errors.New("wildfire: bad PKCS#5 padding")
	ErrEmptyPlaintext   = errors.New("wildfire: wfAES plaintext of 4 bytes or fewer") // the server's decrypt returns null
	ErrTimeInconsistent = errors.New("wildfire: wfAES hour more than 24 h from now")
	ErrShortSecret      = errors.New("wildfire: session secret shorter than the AES key")
	ErrBadBase64        = errors.New("wildfire: not base64")
	ErrBadToken         = errors.New("wildfire: malformed token")
	ErrTokenKey         = errors.New("wildfire: DES token does not start with the token key")
)

// Epoch2018 is 2018-01-01 00:00 +08:00 in Unix seconds, hour 0 of the wfAES
// prefix (§3.1).
const Epoch2018 = 1514736000

// Hour counts hours since Epoch2018: the 4-byte prefix of every wfAES
// plaintext (§3.1). It is a Java int on the server.
type Hour int32

// HourOf returns t's hour, (unix − Epoch2018) / 3600 as the server computes it.
func HourOf(t time.Time) Hour { return Hour((t.Unix() - Epoch2018) / 3600) }

// HourNow is HourOf(time.Now()).
func HourNow() Hour { return HourOf(time.Now()) }

// AppendHourPrefix appends h as the server writes it: three bytes
// little-endian, then 0 (its shift bug zeroes the fourth; harmless while
// h < 2^24, i.e. for about 1900 years).
func AppendHourPrefix(dst []byte, h Hour) []byte {
	return append(dst, byte(h), byte(h>>8), byte(h>>16), 0)
}

// CheckHour refuses an hour more than MaxSkewHours from now, as the
// server's decrypt does (§3.1); the caller's clock decides now. The
// difference is taken in 64 bits, where Java's int arithmetic would wrap for
// hours ~2^31 apart (no real clock gets there).
func CheckHour(h, now Hour) error {
	if d := int64(now) - int64(h); d > MaxSkewHours || d < -MaxSkewHours {
		return ErrTimeInconsistent
	}
	return nil
}

// rootKey is AES.java's aes_key: its first 16 bytes are the AES-128 root
// key, all 32 the AES-256 one (§3.1).
var rootKey = [32]byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x78, 0x79, 0x7A, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F,
	0x3A, 0x1F, 0x28, 0x39, 0x4F, 0x52, 0x68, 0x79, 0x71, 0x73, 0x7A, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F}

// Cipher is wfAES with one key (§3.1): AES-CBC, PKCS#5 padding, IV = the
// first 16 key bytes, plaintext = hour prefix ‖ data. Build one per session
// (and share the root one); its methods are safe for concurrent use.
type Cipher struct {
	block cipher.Block
	iv    [aes.BlockSize]byte
}

// NewCipher returns the AES-128 wfAES of a session secret: key[i] = the
// secret's i-th UTF-16 unit & 0xFF for i < 16, i.e. its first 16 ASCII
// characters for the UUIDs the server issues. An empty secret gives the root
// cipher. A secret shorter than 16 is ErrShortSecret (the server throws).
func NewCipher(secret string) (*Cipher, error) { return newCipher(secret, 16) }

// NewCipher256 is NewCipher for a server with encrypt.use_aes256 true: a
// 32-byte key (the secret's first 32 characters, or the whole root key),
// the IV still its first 16 bytes.
func NewCipher256(secret string) (*Cipher, error) { return newCipher(secret, 32) }

func newCipher(secret string, keyLen int) (*Cipher, error) {
	var key [32]byte
	if secret == "" {
		copy(key[:], rootKey[:])
	} else {
		i := 0
		for _, u := range utf16.Encode([]rune(secret)) {
			if i == keyLen {
				break
			}
			key[i] = byte(u)
			i++
		}
		if i < keyLen {
			return nil, ErrShortSecret
		}
	}
	b, err := aes.NewCipher(key[:keyLen])
	if err != nil {
		return nil, fmt.Errorf("wildfire: %w", err)
	}
	c := &Cipher{block: b}
	copy(c.iv[:], key[:aes.BlockSize])
	return c, nil
}

var root128 = must(NewCipher(""))

func must(c *Cipher, err error) *Cipher {
	if err != nil {
		panic(err)
	}
	return c
}

// RootCipher returns the AES-128 root-key cipher (empty user key): it seals
// IM tokens and the HTTP cid/uid headers (§3.3, §3.4).
func RootCipher() *Cipher { return root128 }

// EncryptedLen is the ciphertext size of n data bytes: the hour prefix and
// PKCS#5 padding rounded to whole blocks.
func (c *Cipher) EncryptedLen(n int) int { return ((n+4)/aes.BlockSize + 1) * aes.BlockSize }

// Encrypt returns wfAES(hour ‖ data).
func (c *Cipher) Encrypt(h Hour, data []byte) []byte { return c.AppendEncrypt(nil, h, data) }

// AppendEncrypt appends wfAES(hour ‖ data) to dst, growing it at most once.
func (c *Cipher) AppendEncrypt(dst []byte, h Hour, data []byte) []byte {
	n := c.EncryptedLen(len(data))
	start := len(dst)
	dst = slices.Grow(dst, n)
	dst = AppendHourPrefix(dst, h)
	dst = append(dst, data...)
	pad := byte(start + n - len(dst))
	for len(dst) < start+n {
		dst = append(dst, pad)
	}
	// CBC by hand: cipher.NewCBCEncrypter would allocate per call.
	prev := c.iv[:]
	for ct := dst[start:]; len(ct) > 0; ct = ct[aes.BlockSize:] {
		blk := ct[:aes.BlockSize]
		subtle.XORBytes(blk, blk, prev)
		c.block.Encrypt(blk, blk)
		prev = blk
	}
	return dst
}

// Open decrypts ct without the time check, returning the data after the
// prefix (a new slice) and the prefix's hour, read as the server reads it:
// all four bytes little-endian as a Java int. Like the server it refuses a
// plaintext of 4 bytes or fewer (ErrEmptyPlaintext).
func (c *Cipher) Open(ct []byte) (data []byte, h Hour, err error) {
	if err := checkCipherText(ct); err != nil {
		return nil, 0, err
	}
	return c.openInto(make([]byte, len(ct)), ct)
}

// Decrypt is Open plus the server's ±24 h check against now (§3.1).
func (c *Cipher) Decrypt(ct []byte, now Hour) ([]byte, error) {
	data, h, err := c.Open(ct)
	if err != nil {
		return nil, err
	}
	if err := CheckHour(h, now); err != nil {
		return nil, err
	}
	return data, nil
}

// AppendDecrypt appends Decrypt(ct, now) to dst, growing it at most once: a
// receiver that reuses dst decrypts without allocating. On error dst comes
// back unchanged. ct must not overlap dst's spare capacity.
func (c *Cipher) AppendDecrypt(dst, ct []byte, now Hour) ([]byte, error) {
	if err := checkCipherText(ct); err != nil {
		return dst, err
	}
	start := len(dst)
	dst = slices.Grow(dst, len(ct))
	data, h, err := c.openInto(dst[start:start+len(ct)], ct)
	if err == nil {
		err = CheckHour(h, now)
	}
	if err != nil {
		return dst[:start], err
	}
	return append(dst[:start], data...), nil // drops the prefix: the copy moves down
}

func checkCipherText(ct []byte) error {
	if len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
		return ErrCipherText
	}
	return nil
}

// openInto decrypts ct into out, as long as ct, and returns the data after
// the prefix (aliasing out) and the prefix's hour.
func (c *Cipher) openInto(out, ct []byte) (data []byte, h Hour, err error) {
	cbc.Decrypt(c.block, c.iv[:], out, ct)
	out, ok := cbc.Unpad(out, aes.BlockSize)
	if !ok {
		return nil, 0, ErrPadding
	}
	if len(out) <= 4 {
		return nil, 0, ErrEmptyPlaintext
	}
	return out[4:], Hour(binary.LittleEndian.Uint32(out)), nil
}

// DES token core (§3.2): DES-CBC, PKCS#5, this key and IV, base64 (std).
var (
	desKey = [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
	desIV  = [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
)

// MakeDESToken returns the server's token core for userID:
// base64(DES("<tokenKey>|<issueMs>|<userID>")).
func MakeDESToken(tokenKey string, issueMs int64, userID string) string {
	return desEncrypt(tokenKey + "|" + strconv.FormatInt(issueMs, 10) + "|" + userID)
}

func desEncrypt(s string) string {
	b, _ := des.NewCipher(desKey[:])
	n := (len(s)/des.BlockSize + 1) * des.BlockSize
	buf := make([]byte, n)
	copy(buf, s)
	for i := len(s); i < n; i++ {
		buf[i] = byte(n - len(s))
	}
	cipher.NewCBCEncrypter(b, desIV[:]).CryptBlocks(buf, buf)
	return base64.StdEncoding.EncodeToString(buf)
}

// ParseDESToken is the server's check of a token core (Tokenor.getUserId):
// it must decrypt to "<tokenKey>|<issueMs>|<userID>", a further "|…" (newer
// servers append a random suffix) being dropped. Expiry is the caller's
// business (token.expire_time is unset by default).
func ParseDESToken(desToken, tokenKey string) (userID string, issueMs int64, err error) {
	raw, err := base64.StdEncoding.DecodeString(desToken)
	if err != nil {
		return "", 0, ErrBadBase64
	}
	n := len(raw)
	if n == 0 || n%des.BlockSize != 0 {
		return "", 0, ErrCipherText
	}
	b, _ := des.NewCipher(desKey[:])
	cipher.NewCBCDecrypter(b, desIV[:]).CryptBlocks(raw, raw)
	pad := int(raw[n-1])
	if pad == 0 || pad > des.BlockSize {
		return "", 0, ErrPadding
	}
	for _, p := range raw[n-pad:] {
		if int(p) != pad {
			return "", 0, ErrPadding
		}
	}
	rest, ok := strings.CutPrefix(string(raw[:n-pad]), tokenKey+"|")
	if !ok {
		return "", 0, ErrTokenKey
	}
	ms, id, ok := strings.Cut(rest, "|")
	if !ok {
		return "", 0, ErrBadToken
	}
	if issueMs, err = strconv.ParseInt(ms, 10, 64); err != nil {
		return "", 0, ErrBadToken
	}
	id, _, _ = strings.Cut(id, "|")
	return id, issueMs, nil
}

// IMToken is what /admin/user/get_token's token holds (§3.3).
type IMToken struct {
	DESToken string // the CONNECT password's plaintext
	Secret   string // the session key: NewCipher(Secret)
	DBSecret string // the client's local database key; unused by a tester
	Hour     Hour   // when it was sealed
}

// ParseIMToken parses a get_token token with the AES-128 root key: base64,
// wfAES root decrypt, drop the hour, split "desToken|secret|dbSecret". It
// does not check the hour: a token stays valid until its session is gone.
func ParseIMToken(token string) (IMToken, error) { return RootCipher().ParseIMToken(token) }

// ParseIMToken is the package function with c as the root cipher
// (NewCipher256("") for an AES-256 server).
func (c *Cipher) ParseIMToken(token string) (IMToken, error) {
	ct, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return IMToken{}, ErrBadBase64
	}
	data, h, err := c.Open(ct)
	if err != nil {
		return IMToken{}, fmt.Errorf("wildfire: IM token: %w", err)
	}
	parts := strings.Split(string(data), "|")
	if len(parts) != 3 {
		return IMToken{}, ErrBadToken
	}
	return IMToken{DESToken: parts[0], Secret: parts[1], DBSecret: parts[2], Hour: h}, nil
}

// MakeIMToken seals t as the server does, with the AES-128 root key at
// t.Hour: base64(wfAES_root(hour ‖ "desToken|secret|dbSecret")).
func MakeIMToken(t IMToken) string { return RootCipher().MakeIMToken(t) }

// MakeIMToken is the package function with c as the root cipher.
func (c *Cipher) MakeIMToken(t IMToken) string {
	plain := t.DESToken + "|" + t.Secret + "|" + t.DBSecret
	return base64.StdEncoding.EncodeToString(c.Encrypt(t.Hour, []byte(plain)))
}

// ConnectPassword is CONNECT's password (§3.4, §5.3): the session cipher's
// encryption of the DES token's ASCII at hour h.
func ConnectPassword(session *Cipher, desToken string, h Hour) []byte {
	return session.Encrypt(h, []byte(desToken))
}

// PasswordUserID is the server's side of ConnectPassword: decrypt with the
// session cipher (±24 h from now), then ParseDESToken. Any failure is what
// the server answers with ConnackBadUsernameOrPassword; comparing the user
// id with CONNECT's username is the caller's.
func PasswordUserID(session *Cipher, password []byte, now Hour, tokenKey string) (string, error) {
	plain, err := session.Decrypt(password, now)
	if err != nil {
		return "", err
	}
	id, _, err := ParseDESToken(string(plain), tokenKey)
	return id, err
}

// EncodeHTTPHeader is the value of the short-link headers cid and uid
// (§3.4, §5.2): base64(wfAES_root(hour ‖ value)).
func EncodeHTTPHeader(value string, h Hour) string {
	return base64.StdEncoding.EncodeToString(RootCipher().Encrypt(h, []byte(value)))
}
