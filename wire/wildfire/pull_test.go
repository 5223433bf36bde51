package wildfire

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// viaProto is what Decode must match: proto.Unmarshal read through the getters.
func viaProto(b []byte) (PullResult, error) {
	var r PullResult
	err := r.decodeProto(b)
	return r, err
}

func equalResults(t *testing.T, got, want PullResult) {
	t.Helper()
	if got.Current != want.Current || got.Head != want.Head || len(got.Messages) != len(want.Messages) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for i, g := range got.Messages {
		w := want.Messages[i]
		if g.ConvType != w.ConvType || g.MessageID != w.MessageID || !bytes.Equal(g.ConvTarget, w.ConvTarget) ||
			!bytes.Equal(g.FromUser, w.FromUser) || !bytes.Equal(g.Text, w.Text) {
			t.Fatalf("message %d: got %+v\nwant %+v", i, g, w)
		}
	}
}

// The real server's result is in the plain form: read in place.
func TestPullResultVector(t *testing.T) {
	b := loadVectors(t).hex(t, "PB_PULL_RESULT")
	var r PullResult
	if !r.decodePlain(b) {
		t.Fatal("PB_PULL_RESULT is not read in place")
	}
	want, err := viaProto(b)
	if err != nil {
		t.Fatal(err)
	}
	equalResults(t, r, want)
	if m := r.Messages[0]; string(m.Text) != "hello 世界" || string(m.FromUser) != "u1" || string(m.ConvTarget) != "g1" ||
		m.ConvType != ConvGroup || m.MessageID != 588578821752520705 {
		t.Errorf("%+v", m)
	}
}

// What the plain form does not cover goes through proto, errors included.
func TestPullResultOutsideThePlainForm(t *testing.T) {
	v := loadVectors(t).hex(t, "PB_PULL_RESULT")
	var res pb.PullMessageResult
	if err := proto.Unmarshal(v, &res); err != nil {
		t.Fatal(err)
	}
	m, _ := proto.Marshal(res.Message[0])
	conv := []byte{0x08, 0x02, 0x12, 0x02, 'g', '9', 0x18, 0x00} // type 2, target "g9", line 0
	numbers := []byte{0x10, 0x05, 0x18, 0x06}                    // current 5, head 6
	cases := map[string][]byte{
		"a second conversation, merged": slices.Concat(lenField(1, slices.Concat(m, lenField(1, conv))), numbers),
		"an unknown field":              slices.Concat(lenField(1, m), numbers, []byte{0x48, 0x01}),
		"no head":                       slices.Concat(lenField(1, m), numbers[:2]),
		"a cut field":                   v[:len(v)-1],
		"a group":                       slices.Concat(v, []byte{0x4b, 0x4c}),
	}
	for name, b := range cases {
		var r PullResult
		if r.decodePlain(b) {
			t.Errorf("%s: read in place", name)
		}
		err := r.Decode(b)
		want, werr := viaProto(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%s: %v, proto %v", name, err, werr)
		}
		equalResults(t, r, want)
	}
}

func lenField(n protowire.Number, b []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, n, protowire.BytesType), b)
}

// FuzzPullResult holds Decode to proto.Unmarshal: the same refusals, the
// same values.
func FuzzPullResult(f *testing.F) {
	f.Add(loadVectors(f).hex(f, "PB_PULL_RESULT"))
	f.Add([]byte{0x10, 0x01, 0x18, 0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r PullResult
		err := r.Decode(b)
		want, werr := viaProto(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Decode %v, proto %v", err, werr)
		}
		if err == nil {
			equalResults(t, r, want)
		}
	})
}

func TestAppendDecrypt(t *testing.T) {
	c, _ := NewCipher("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
	for _, n := range []int{1, 11, 12, 27, 28, 1000} {
		data := bytes.Repeat([]byte{'d'}, n)
		got, err := c.AppendDecrypt([]byte("pre"), c.Encrypt(9, data), 9)
		if err != nil || string(got[:3]) != "pre" || !bytes.Equal(got[3:], data) {
			t.Fatalf("n=%d: %q %v", n, got, err)
		}
	}
	for _, k := range []struct {
		ct   []byte
		want error
	}{
		{c.Encrypt(9, []byte("x"))[:15], ErrCipherText},
		{c.Encrypt(9, nil), ErrEmptyPlaintext},
		{c.Encrypt(9+MaxSkewHours+1, []byte("x")), ErrTimeInconsistent},
	} {
		if got, err := c.AppendDecrypt([]byte("pre"), k.ct, 9); !errors.Is(err, k.want) || string(got) != "pre" {
			t.Errorf("%q %v, want dst unchanged and %v", got, err, k.want)
		}
	}
}

// A puller that reuses its buffers decrypts and reads a result with no
// allocation.
func TestPullAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	c, _ := NewCipher("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
	a := Puback{PacketID: 1, Data: c.Encrypt(9, loadVectors(t).hex(t, "PB_PULL_RESULT"))}
	var buf []byte
	var r PullResult
	n := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = a.AppendResult(buf[:0], c, 9); err != nil {
			t.Fatal(err)
		}
		if err := r.Decode(buf); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("AppendResult and Decode allocate %v times", n)
	}
}

func TestAppendPullRequest(t *testing.T) {
	for _, k := range []struct {
		id  int64
		typ int32
	}{{0, PullNormal}, {588578821752520705, PullChatroom}, {-1, -1}} {
		want, err := proto.Marshal(&pb.PullMessageRequest{Id: proto.Int64(k.id), Type: proto.Int32(k.typ)})
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendPullRequest(nil, k.id, k.typ); !bytes.Equal(got, want) {
			t.Errorf("%d %d: %x, want %x", k.id, k.typ, got, want)
		}
	}
}
