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

// BenchmarkOnRecv is a group member's RECV, encrypted, from the frame's
// body to the verifier's verdict.
func BenchmarkOnRecv(b *testing.B) {
	p, err := plan.Workload{Name: "wukongim/bench", Prefix: "bn_", BodySize: 200, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":1,"members":4,"rate":1,"messages":1}`)}}.Build()
	if err != nil {
		b.Fatal(err)
	}
	d := &Driver{plan: p, groupOf: map[string]uint32{p.GroupID(p.Convs[0].Group): 0}}
	ciph, err := wire.NewCipher([]byte("8e65549ac3e59ba4"), []byte("0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	sender := p.Members(0)[1]
	text := verify.AppendBody(nil, p.RunID, sender, 0, 1, time.Now().UnixMicro(), 200)
	frame, err := wire.Recv{FromUID: p.UserID(sender), ChannelID: p.GroupID(p.Convs[0].Group),
		ChannelType: wire.ChannelGroup, MessageSeq: 1, MessageID: 1 << 40,
		Payload: ciph.Encrypt(appendContent(nil, text))}.Append(nil, 5)
	if err != nil {
		b.Fatal(err)
	}
	_, flags, body, _, _ := wire.SplitFrame(frame)
	me := p.Members(0)[0]
	h := conformance.NewChecking(p, me)
	c := &conn{d: d, user: me, h: h, cipher: ciph, version: 5}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.onRecv(flags, body); err != nil {
			b.Fatal(err)
		}
		c.recvacks = c.recvacks[:0]
	}
	if h.Tally.Corrupt.Load()+h.Tally.Foreign.Load() > 0 {
		b.Fatal("the RECV did not verify")
	}
}
