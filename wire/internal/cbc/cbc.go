// Package cbc decrypts CBC and strips PKCS#5/#7 padding without the
// allocation cipher.NewCBCDecrypter makes per call: both protocols decrypt
// every message they receive.
package cbc

import (
	"crypto/cipher"
	"crypto/subtle"
)

// Decrypt decrypts the whole blocks of ct into out, last block first so
// that out may be ct itself.
func Decrypt(block cipher.Block, iv, out, ct []byte) {
	n := block.BlockSize()
	for i := len(ct) - n; i >= 0; i -= n {
		prev := iv
		if i > 0 {
			prev = ct[i-n : i]
		}
		blk := out[i : i+n]
		block.Decrypt(blk, ct[i:i+n])
		subtle.XORBytes(blk, blk, prev)
	}
}

// Unpad strips PKCS#5/#7 padding of a block size of size; ok is false for
// padding that is not.
func Unpad(b []byte, size int) (out []byte, ok bool) {
	if len(b) == 0 {
		return nil, false
	}
	pad := int(b[len(b)-1])
	if pad == 0 || pad > size || pad > len(b) {
		return nil, false
	}
	for _, v := range b[len(b)-pad:] {
		if int(v) != pad {
			return nil, false
		}
	}
	return b[:len(b)-pad], true
}
