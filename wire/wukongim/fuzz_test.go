package wukongim

import (
	"bytes"
	"reflect"
	"testing"
)

// fuzzSeeds are whole frames: the vector frames (when the shared folder is
// there) and the sample packets at each version.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	if v, err := loadVectorsQuiet(); err == nil {
		for _, name := range []string{"CONNECT", "CONNACK", "SEND", "SENDACK", "RECV", "RECVACK", "PING", "PONG", "DISCONNECT"} {
			if b, err := hexField(v, name); err == nil {
				seeds = append(seeds, b)
			}
		}
	}
	for _, v := range []uint8{3, 4, 5} {
		for _, p := range samplePackets(SettingStream | SettingTopic) {
			b, err := p.Append(nil, v)
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, b)
		}
	}
	return seeds
}

func FuzzSplitFrame(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
		f.Add(s[:len(s)/2])
	}
	f.Add([]byte{0x30, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, buf []byte) {
		typ, flags, body, n, err := SplitFrame(buf)
		if err != nil || n == 0 {
			if n != 0 || body != nil {
				t.Fatalf("n=%d body=%d with err=%v", n, len(body), err)
			}
			return
		}
		if n > len(buf) || flags > 15 || len(body) > MaxRemainingLength {
			t.Fatalf("n=%d len=%d flags=%d body=%d", n, len(buf), flags, len(body))
		}
		if typ == TypePing || typ == TypePong {
			if n != 1 {
				t.Fatalf("%s took %d bytes", typ, n)
			}
			return
		}
		if !typ.Valid() || !bytes.Equal(body, buf[n-len(body):n]) || cap(body) != len(body) {
			t.Fatalf("type %d, body not the frame's tail", typ)
		}
		// The header re-encodes to no more bytes than it took (the input may
		// use an overlong length).
		hdr, err := AppendHeader(nil, typ, flags, len(body))
		if err != nil || len(hdr) > n-len(body) {
			t.Fatalf("header %x from %x: %v", hdr, buf[:n-len(body)], err)
		}
	})
}

// FuzzDecode decodes arbitrary bytes as every packet type at every version:
// no panic, and whatever decodes encodes and decodes back to itself.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if _, flags, body, n, err := SplitFrame(s); err == nil && n > 0 {
			f.Add(flags, body)
		}
	}
	f.Fuzz(func(t *testing.T, flags uint8, body []byte) {
		flags &= 0x0f
		for typ := PacketType(0); typ <= 13; typ++ {
			for v := uint8(0); v <= 6; v++ {
				p, err := Decode(typ, flags, body, v)
				if err != nil {
					continue
				}
				enc, err := p.Append(nil, v)
				if err != nil {
					if s, ok := p.(Send); ok && len(s.Payload) > MaxPayloadLen {
						continue // the client library's limit, not the decoder's
					}
					t.Fatalf("%s v%d: re-encode %+v: %v", typ, v, p, err)
				}
				back, n, err := DecodeFrame(enc, v)
				if err != nil || n != len(enc) {
					t.Fatalf("%s v%d: decode of re-encoding: n=%d %v", typ, v, n, err)
				}
				if !reflect.DeepEqual(back, p) {
					t.Fatalf("%s v%d: round trip\n got %+v\nwant %+v", typ, v, back, p)
				}
			}
		}
	})
}

func FuzzDecrypt(f *testing.F) {
	c, err := NewCipher([]byte("8e65549ac3e59ba4"), []byte("0123456789abcdef"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("Xh10EPPP5rWxvUSjeRjAuIOvBiFp/tITLUMwANS1ecI="))
	f.Add([]byte("AAAAAAAAAAAAAAAAAAAAAA=="))
	f.Add([]byte("===="))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, in []byte) {
		plain, err := c.Decrypt(in)
		if err != nil {
			if plain != nil {
				t.Fatal("plaintext with an error")
			}
		} else if back, err := c.Decrypt(c.Encrypt(plain)); err != nil || !bytes.Equal(back, plain) {
			t.Fatalf("re-encryption of %x: %x %v", plain, back, err)
		}
		// Any bytes encrypt and decrypt back.
		if back, err := c.Decrypt(c.Encrypt(in)); err != nil || !bytes.Equal(back, in) {
			t.Fatalf("round trip of %x: %x %v", in, back, err)
		}
	})
}
