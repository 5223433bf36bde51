package openim

import (
	"encoding/json"
	"testing"

	"github.com/imbench/imbench/load/plan"

	"github.com/imbench/imbench/wire/openim/pb"
)

// BenchmarkArrivalsNotice is a pulled page of a group's notifications (the
// member invitations a login's sync brings).
func BenchmarkArrivalsNotice(b *testing.B) {
	p, err := plan.Workload{Name: "openim/bench", Prefix: "bn_", BodySize: 200, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":1,"members":4,"rate":1,"messages":1}`)}}.Build()
	if err != nil {
		b.Fatal(err)
	}
	c := &conn{d: &Driver{plan: p, byID: map[string]uint32{"sg_g1": 0}}}
	page := &pb.PullMsgs{}
	for i := range 20 {
		page.Msgs = append(page.Msgs, &pb.MsgData{SendID: "imAdmin", ContentType: 1504, Seq: int64(i + 1),
			Content: []byte(`{"detail":"{\"group\":{\"groupID\":\"g1\",\"groupName\":\"G1\"},\"invitedUserList\":[{\"userID\":\"u7\"}]}"}`)})
	}
	msgs := map[string]*pb.PullMsgs{"sg_g1": page}
	b.ReportAllocs()
	for b.Loop() {
		if got := c.arrivals(msgs, true, false); len(got) != 20 || !got[0].Notice {
			b.Fatal(got)
		}
	}
}
