package wukongim

import (
	"bytes"
	"testing"
)

// benchRecv is a RECV as a group member gets it: an encrypted payload of a
// 200-byte text.
func benchRecv(b *testing.B) (c *Cipher, flags uint8, body []byte) {
	c, err := NewCipher([]byte("8e65549ac3e59ba4"), []byte("0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	r := Recv{Flags: FlagRedDot, MsgKey: "beb67434fdeb52f35e1ca605b74912ef", FromUID: "imb7u123",
		ChannelID: "imb7g4", ChannelType: ChannelGroup, ClientMsgNo: "imb7u123-4-1a", MessageID: 1 << 40,
		MessageSeq: 77, Timestamp: 1700000000, Payload: c.Encrypt(bytes.Repeat([]byte{'t'}, 200))}
	frame, err := r.Append(nil, 5)
	if err != nil {
		b.Fatal(err)
	}
	_, flags, body, _, err = SplitFrame(frame)
	if err != nil {
		b.Fatal(err)
	}
	return c, flags, body
}

func BenchmarkDecodeRecv(b *testing.B) {
	_, flags, body := benchRecv(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRecv(flags, body, 5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecrypt(b *testing.B) {
	c, flags, body := benchRecv(b)
	r, _ := DecodeRecv(flags, body, 5)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decrypt(r.Payload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRecvView(b *testing.B) {
	_, flags, body := benchRecv(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRecvView(flags, body, 5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendDecrypt(b *testing.B) {
	c, flags, body := benchRecv(b)
	r, _ := DecodeRecvView(flags, body, 5)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = c.AppendDecrypt(buf[:0], r.Payload); err != nil {
			b.Fatal(err)
		}
	}
}
