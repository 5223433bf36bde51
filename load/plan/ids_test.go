package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/runid"
	oim "github.com/imbench/imbench/wire/openim"
	wf "github.com/imbench/imbench/wire/wildfire"
	wk "github.com/imbench/imbench/wire/wukongim"
)

func idWorkload(runID, prefix string) Workload {
	return Workload{Name: "ids", RunID: runID, Prefix: prefix, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"pairs","pairs":3,"messages":1,"rate":1}`),
		json.RawMessage(`{"kind":"groups","groups":2,"members":3,"messages":1,"rate":1}`),
		json.RawMessage(`{"kind":"chatroom","members":3,"senders":1,"messages":1,"rate":1}`),
	}}
}

// Every id a plan makes is one each real server takes: OpenIM's
// user_register, WuKongIM's uid and channel rule, Wildfire's varchar(64)
// with the client id "c_<user id>".
func TestPlanIDsEverySystemAccepts(t *testing.T) {
	p, err := idWorkload(strings.Repeat("9", runid.MaxLength), "").Build()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for u := 0; u < p.Users; u++ {
		ids = append(ids, p.UserID(uint32(u)))
	}
	for g := range p.Groups {
		ids = append(ids, p.GroupID(int32(g)))
	}
	for r := range p.Rooms {
		ids = append(ids, p.RoomID(int32(r)))
	}
	if len(p.Groups) == 0 || len(p.Rooms) == 0 {
		t.Fatalf("the plan has %d groups and %d rooms", len(p.Groups), len(p.Rooms))
	}
	for _, id := range ids {
		if !oim.LegalUserID(id) || !wk.LegalID(id) || len("c_"+id) > wf.MaxIDLen {
			t.Errorf("id %q: refused by a real server", id)
		}
	}
}

func TestPlanRefusesIllegalIDs(t *testing.T) {
	for _, c := range []struct{ runID, prefix, want string }{
		{"20261127-054600-1b4c9c", "", "runId"},
		{"r1", "a-b_", "prefix"},
		{"r1", "a@b_", "prefix"},
		{"r1", strings.Repeat("p", 60) + "_", "more than the 62"},
	} {
		_, err := idWorkload(c.runID, c.prefix).Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("runId %q prefix %q: %v, want an error naming %q", c.runID, c.prefix, err, c.want)
		}
	}
}
