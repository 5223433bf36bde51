package wildfire

import (
	"bytes"
	"reflect"
	"testing"
)

// fuzzSeeds are whole frames: the samples, the vector frames and §14's.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, p := range samplePackets() {
		b, err := p.Append(nil)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	v := loadVectors(f)
	for _, name := range []string{"CONNECT_C1_U1", "PUBLISH_MS_7", "PUBACK_MS_7"} {
		seeds = append(seeds, v.hex(f, name))
	}
	seeds = append(seeds, unhex(f, "20110000080010001800200038c1d5deada034"), unhex(f, "40030001fa"))
	return seeds
}

func FuzzSplitFrame(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, 0)
		f.Add(s[:len(s)/2], 0)
	}
	f.Add([]byte{0x30, 0xff, 0xff, 0xff, 0xff, 0x01}, 0)
	f.Add([]byte{0x30, 0x81, 0x80, 0x10}, 1)
	f.Fuzz(func(t *testing.T, buf []byte, which int) {
		limit := MaxRemainingLength
		if which&1 != 0 {
			limit = MaxClientRemainingLength
		}
		typ, flags, body, n, err := SplitFrameLimit(buf, limit)
		if err != nil || n == 0 {
			if n != 0 || body != nil {
				t.Fatalf("n=%d body=%d with err=%v", n, len(body), err)
			}
			return
		}
		if n > len(buf) || flags > 15 || len(body) > limit || !typ.Valid() || !ValidFlags(typ, flags) {
			t.Fatalf("n=%d len=%d type=%d flags=%d body=%d", n, len(buf), typ, flags, len(body))
		}
		if !bytes.Equal(body, buf[n-len(body):n]) || cap(body) != len(body) {
			t.Fatal("body is not the frame's tail")
		}
		// The header re-encodes to no more bytes than it took (the input may
		// use an overlong length).
		hdr, err := AppendHeader(nil, typ, flags, len(body))
		if err != nil || len(hdr) > n-len(body) {
			t.Fatalf("header %x from %x: %v", hdr, buf[:n-len(body)], err)
		}
	})
}

// FuzzDecode decodes arbitrary bytes as every packet type: no panic, and
// whatever decodes encodes and decodes back to itself.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if _, flags, body, n, err := SplitFrame(s); err == nil && n > 0 {
			f.Add(flags, body)
		}
	}
	f.Fuzz(func(t *testing.T, flags uint8, body []byte) {
		flags &= 0x0f
		for typ := PacketType(0); typ <= 15; typ++ {
			p, err := Decode(typ, flags, body)
			if err != nil {
				if p != nil {
					t.Fatalf("%s: packet with error", typ)
				}
				continue
			}
			if p.PacketType() != typ {
				t.Fatalf("%s decoded as %s", typ, p.PacketType())
			}
			enc, err := p.Append(nil)
			if err != nil {
				t.Fatalf("%s: re-encode %+v: %v", typ, p, err)
			}
			back, n, err := DecodeFrame(enc)
			if err != nil || n != len(enc) {
				t.Fatalf("%s: decode of re-encoding: n=%d %v", typ, n, err)
			}
			if !reflect.DeepEqual(back, p) {
				t.Fatalf("%s: round trip\n got %#v\nwant %#v", typ, back, p)
			}
			// Every layout is exact: the re-encoding is the very input.
			if _, gotFlags, gotBody, _, _ := SplitFrame(enc); gotFlags != flags || !bytes.Equal(gotBody, body) {
				t.Fatalf("%s: re-encoding %x differs from %x", typ, gotBody, body)
			}
		}
	})
}

// FuzzDecrypt opens arbitrary ciphertexts with the session and root keys:
// no panic; whatever opens seals back to the same bytes at its hour; and any
// data seals and opens back.
func FuzzDecrypt(f *testing.F) {
	v := loadVectors(f)
	c := sessionCipher(f, v)
	for _, name := range []string{"AES_SECRET_HELLO", "AES_SECRET_PLAIN40", "AES_ROOT_HELLO", "CONNECT_PASSWORD"} {
		f.Add(v.hex(f, name))
	}
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, k := range []*Cipher{c, RootCipher()} {
			data, h, err := k.Open(in)
			if err != nil {
				if data != nil {
					t.Fatal("data with an error")
				}
			} else if h >= 0 && h < 1<<24 {
				// The server writes the prefix's fourth byte as 0, so only
				// 24-bit hours re-seal to the same bytes.
				if !bytes.Equal(k.Encrypt(h, data), in) {
					t.Fatalf("re-seal of %x at %d differs", data, h)
				}
			} else if back, h2, err := k.Open(k.Encrypt(h, data)); err != nil || h2 != h&0xffffff || !bytes.Equal(back, data) {
				t.Fatalf("re-seal of %x at %d: %x %d %v", data, h, back, h2, err)
			}
			if len(in) > 0 {
				back, err := k.Decrypt(k.Encrypt(70000, in), 70000)
				if err != nil || !bytes.Equal(back, in) {
					t.Fatalf("round trip of %x: %x %v", in, back, err)
				}
			}
		}
		// Token parsers take any text without panicking.
		_, _ = ParseIMToken(string(in))
		_, _, _ = ParseDESToken(string(in), DefaultTokenKey)
	})
}
