package wukongim

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/imbench/imbench/wire/internal/cbc"
)

// Errors of the encryption layer (§4).
var (
	ErrPeerKey    = errors.New("wukongim: peer key is not base64 of at least 32 bytes")
	ErrBadBase64  = errors.New("wukongim: payload is not base64")
	ErrCipherText = errors.New("wukongim: ciphertext is not a positive multiple of 16 bytes")
	ErrPadding    = errors.New("wukongim: bad PKCS#7 padding")
)

// KeyPair is one side's X25519 key pair for one connection: the client
// sends PublicKeyBase64 as CONNECT's clientKey, the server as CONNACK's
// serverKey (§4.1). Both sides make a fresh pair per connection.
type KeyPair struct {
	priv *ecdh.PrivateKey
}

// GenerateKey makes a key pair from 32 bytes of rand (crypto/rand when nil),
// as the Go SDKs do with curve25519.ScalarBaseMult.
func GenerateKey(rnd io.Reader) (*KeyPair, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	var seed [32]byte
	if _, err := io.ReadFull(rnd, seed[:]); err != nil {
		return nil, fmt.Errorf("wukongim: key: %w", err)
	}
	return NewKeyPairFromPrivate(seed[:])
}

// NewKeyPairFromPrivate makes a key pair from a 32-byte private scalar
// (clamped as X25519 does); tests use the vectors' fixed keys.
func NewKeyPairFromPrivate(priv []byte) (*KeyPair, error) {
	k, err := ecdh.X25519().NewPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("wukongim: key: %w", err)
	}
	return &KeyPair{priv: k}, nil
}

// PublicKey returns the 32-byte public key.
func (k *KeyPair) PublicKey() []byte { return k.priv.PublicKey().Bytes() }

// PublicKeyBase64 returns the public key as base64 (std, padded): the
// clientKey or serverKey string.
func (k *KeyPair) PublicKeyBase64() string {
	return base64.StdEncoding.EncodeToString(k.priv.PublicKey().Bytes())
}

// SharedSecret is X25519 of this private key and the peer's base64 public
// key; like the server, it uses the first 32 decoded bytes and refuses fewer.
func (k *KeyPair) SharedSecret(peerKeyB64 string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(peerKeyB64)
	if err != nil || len(raw) < 32 {
		return nil, ErrPeerKey
	}
	pub, err := ecdh.X25519().NewPublicKey(raw[:32])
	if err != nil {
		return nil, ErrPeerKey
	}
	s, err := k.priv.ECDH(pub)
	if err != nil { // a low-order peer key gives an all-zero secret
		return nil, fmt.Errorf("wukongim: shared secret: %w", err)
	}
	return s, nil
}

// Cipher builds the connection's cipher from the peer's base64 public key
// and the salt: CONNACK's serverKey and salt on a client, CONNECT's
// clientKey and the salt it made on a server.
func (k *KeyPair) Cipher(peerKeyB64, salt string) (*Cipher, error) {
	s, err := k.SharedSecret(peerKeyB64)
	if err != nil {
		return nil, err
	}
	key := AESKey(s)
	return NewCipher(key[:], []byte(salt))
}

// AESKey derives the AES-128 key from the shared secret (§4.2): the first
// 16 characters of the lowercase hex MD5 of the secret's base64 (std,
// padded) text, used as 16 ASCII bytes.
func AESKey(shared []byte) [16]byte {
	b64 := make([]byte, base64.StdEncoding.EncodedLen(len(shared)))
	base64.StdEncoding.Encode(b64, shared)
	sum := md5.Sum(b64)
	var key [16]byte
	hex.Encode(key[:], sum[:8])
	return key
}

// Cipher is one connection's AES-CBC with PKCS#7 padding and a fixed IV,
// the CONNACK salt (§4.3, §4.4). Build it once per connection; its methods
// are safe for concurrent use.
type Cipher struct {
	block cipher.Block
	iv    [aes.BlockSize]byte
}

// NewCipher makes a Cipher from the key (16 bytes in this protocol) and the
// 16-byte IV.
func NewCipher(key, iv []byte) (*Cipher, error) {
	if len(iv) != aes.BlockSize {
		return nil, fmt.Errorf("wukongim: IV (salt) is %d bytes, want 16", len(iv))
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("wukongim: %w", err)
	}
	c := &Cipher{block: b}
	copy(c.iv[:], iv)
	return c, nil
}

// Encrypt returns the base64 (std, padded) text of plain encrypted: what
// goes on the wire as a payload.
func (c *Cipher) Encrypt(plain []byte) []byte { return c.AppendEncrypt(nil, plain) }

// AppendEncrypt appends Encrypt(plain) to dst, growing it at most once.
func (c *Cipher) AppendEncrypt(dst, plain []byte) []byte {
	n := (len(plain)/aes.BlockSize + 1) * aes.BlockSize
	b64 := base64.StdEncoding.EncodedLen(n)
	start := len(dst)
	dst = slices.Grow(dst, b64+n)
	buf := dst[start : start+b64+n]
	ct := buf[b64:] // ciphertext after the room for its base64 text
	copy(ct, plain)
	pad := byte(n - len(plain))
	for i := len(plain); i < n; i++ {
		ct[i] = pad
	}
	cipher.NewCBCEncrypter(c.block, c.iv[:]).CryptBlocks(ct, ct)
	base64.StdEncoding.Encode(buf[:b64], ct)
	return dst[:start+b64]
}

// Decrypt reverses Encrypt: base64 text in, plaintext out (a new slice).
// Bad base64, a length that is not a positive multiple of 16 and bad
// padding are errors.
func (c *Cipher) Decrypt(b64 []byte) ([]byte, error) {
	out, err := c.AppendDecrypt(nil, b64)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AppendDecrypt appends Decrypt(b64) to dst, growing it at most once: a
// receiver that reuses dst decrypts without allocating. On error dst comes
// back unchanged. b64 must not overlap dst's spare capacity.
func (c *Cipher) AppendDecrypt(dst, b64 []byte) ([]byte, error) {
	start, size := len(dst), base64.StdEncoding.DecodedLen(len(b64))
	dst = slices.Grow(dst, size)
	n, err := base64.StdEncoding.Decode(dst[start:start+size], b64)
	if err != nil {
		return dst[:start], ErrBadBase64
	}
	if n == 0 || n%aes.BlockSize != 0 {
		return dst[:start], ErrCipherText
	}
	b := dst[start : start+n]
	cbc.Decrypt(c.block, c.iv[:], b, b)
	plain, ok := cbc.Unpad(b, aes.BlockSize)
	if !ok {
		return dst[:start], ErrPadding
	}
	return dst[:start+len(plain)], nil
}

// MsgKey is the msgKey of a sign string (§4.5, §4.6): the lowercase hex
// MD5 of the base64 text of the encrypted sign.
func (c *Cipher) MsgKey(sign []byte) string {
	var scratch [256]byte
	sum := md5.Sum(c.AppendEncrypt(scratch[:0], sign))
	return hex.EncodeToString(sum[:])
}

const saltAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// NewSalt makes a server's CONNACK salt: SaltLen characters [0-9a-zA-Z],
// uniform, from rand (crypto/rand when nil).
func NewSalt(rnd io.Reader) (string, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	var out [SaltLen]byte
	var buf [32]byte
	for i := 0; i < SaltLen; {
		if _, err := io.ReadFull(rnd, buf[:]); err != nil {
			return "", fmt.Errorf("wukongim: salt: %w", err)
		}
		for _, b := range buf {
			if b >= 248 { // 248 = 4*62: keep the choice uniform
				continue
			}
			out[i] = saltAlphabet[b%62]
			if i++; i == SaltLen {
				break
			}
		}
	}
	return string(out[:]), nil
}
