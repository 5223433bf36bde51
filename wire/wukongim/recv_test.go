package wukongim

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// A view holds the body's own bytes, and copies out to what DecodeRecv gives.
func TestDecodeRecvView(t *testing.T) {
	settings := []uint8{0, SettingStream, SettingTopic, SettingStream | SettingTopic}
	for _, v := range []uint8{1, 2, 3, 4, 5} {
		for _, setting := range settings {
			m := samplePackets(setting)[5].(Recv)
			frame, err := m.Append(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			_, flags, body, _, _ := SplitFrame(frame)
			view, err := DecodeRecvView(flags, body, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := view.Recv(); !reflect.DeepEqual(got, expect(m, v)) {
				t.Fatalf("v%d setting %#x\n got %+v\nwant %+v", v, setting, got, expect(m, v))
			}
			at := bytes.Index(body, []byte("bob"))
			if &view.FromUID[0] != &body[at] {
				t.Errorf("v%d: FromUID is a copy", v)
			}
		}
	}
	if _, err := DecodeRecvView(0, []byte{0, 0}, 5); !errors.Is(err, ErrShort) {
		t.Errorf("short body: %v", err)
	}
}

func TestAppendDecrypt(t *testing.T) {
	c := testCipher(t)
	for _, n := range []int{0, 5, 16, 31, 32, 1000} {
		plain := bytes.Repeat([]byte{'p'}, n)
		got, err := c.AppendDecrypt([]byte("pre"), c.Encrypt(plain))
		if err != nil || string(got[:3]) != "pre" || !bytes.Equal(got[3:], plain) {
			t.Fatalf("len %d: %q %v", n, got, err)
		}
	}
	bad := c.Encrypt([]byte("hello"))
	bad[len(bad)-3] ^= 1 // still base64, a garbled last block
	if got, err := c.AppendDecrypt([]byte("pre"), bad); err == nil || string(got) != "pre" {
		t.Errorf("bad ciphertext: %q %v, want dst unchanged and an error", got, err)
	}
}

// A receiver that reuses its buffer decodes and decrypts a RECV with no
// allocation.
func TestReceiveAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	c := testCipher(t)
	frame, _ := Recv{FromUID: "u1", ChannelID: "g1", ChannelType: ChannelGroup, MessageSeq: 3,
		Payload: c.Encrypt([]byte("hello"))}.Append(nil, 5)
	_, flags, body, _, _ := SplitFrame(frame)
	buf := make([]byte, 0, 64)
	n := testing.AllocsPerRun(100, func() {
		v, err := DecodeRecvView(flags, body, 5)
		if err != nil {
			t.Fatal(err)
		}
		if buf, err = c.AppendDecrypt(buf[:0], v.Payload); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("DecodeRecvView and AppendDecrypt allocate %v times", n)
	}
}
