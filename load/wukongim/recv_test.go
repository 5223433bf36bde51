package wukongim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/imbench/imbench/load/conformance"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// A RECV whose payload was damaged on the way does not decrypt: the
// verifier counts it corrupt, not foreign to the run; an intact one
// verifies.
func TestUndecryptableRecvIsCorrupt(t *testing.T) {
	p, err := plan.Workload{Name: "wukongim/corrupt", Prefix: "cr_", BodySize: 64, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":1,"members":3,"rate":1,"messages":1}`)}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	d := &Driver{plan: p, groupOf: map[string]uint32{p.GroupID(p.Convs[0].Group): 0}}
	ciph, err := wire.NewCipher([]byte("8e65549ac3e59ba4"), []byte("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	sender, me := p.Members(0)[1], p.Members(0)[0]
	recv := func(seq uint32, damage bool) {
		payload := ciph.Encrypt(appendContent(nil, verify.AppendBody(nil, p.RunID, sender, 0, seq, time.Now().UnixMicro(), 64)))
		if damage {
			payload = payload[:len(payload)-4] // base64 of a ciphertext no longer whole blocks
		}
		frame, err := wire.Recv{FromUID: p.UserID(sender), ChannelID: p.GroupID(p.Convs[0].Group),
			ChannelType: wire.ChannelGroup, MessageSeq: seq, MessageID: int64(seq), Payload: payload}.Append(nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		_, flags, body, _, _ := wire.SplitFrame(frame)
		h := conformance.NewChecking(p, me)
		c := &conn{d: d, user: me, h: h, cipher: ciph, version: 5}
		if err := c.onRecv(flags, body); err != nil {
			t.Fatal(err)
		}
		corrupt, foreign := h.Tally.Corrupt.Load(), h.Tally.Foreign.Load()
		switch {
		case damage && (corrupt != 1 || foreign != 0):
			t.Fatalf("damaged RECV: %d corrupt, %d foreign; want 1 corrupt", corrupt, foreign)
		case !damage && corrupt+foreign != 0:
			t.Fatalf("intact RECV: %d corrupt, %d foreign", corrupt, foreign)
		}
	}
	recv(1, false)
	recv(2, true)
}
