package plan

import (
	"fmt"
	"strconv"
)

// MaxIDLength is the longest user, group or chatroom id a plan makes:
// Wildfire keeps ids in varchar(64) columns and names a user's client
// "c_<user id>".
const MaxIDLength = 62

// LegalIDPart reports whether s may be part of an id that every system
// imbench speaks accepts: ASCII letters, digits and '_'. open-im-server
// registers only letters, digits and '_' (IsLegalUserID), WuKongIM refuses
// '@', '#' and '&' in user and channel ids, and the body's separator is '|'.
func LegalIDPart(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// checkIDs refuses a plan one of whose ids a system would refuse.
func (p *Plan) checkIDs() error {
	longest := func(kind, id string) error {
		if !LegalIDPart(id) {
			return fmt.Errorf("%s id %q: ids take only letters, digits and '_' (what OpenIM, WuKongIM and Wildfire all accept)", kind, id)
		}
		if len(id) > MaxIDLength {
			return fmt.Errorf("%s id %q is %d characters, more than the %d every system accepts: shorten the prefix or run id", kind, id, len(id), MaxIDLength)
		}
		return nil
	}
	if p.Users > 0 {
		if err := longest("user", p.UserID(uint32(p.Users-1))); err != nil {
			return err
		}
	}
	keys := map[string]bool{}
	for g := range p.Groups {
		if err := longest("group", p.GroupID(int32(g))); err != nil {
			return err
		}
		if keys[p.Groups[g].Key] {
			return fmt.Errorf("two groups have the id %q", p.GroupID(int32(g)))
		}
		keys[p.Groups[g].Key] = true
	}
	for r := range p.Rooms {
		if err := longest("chatroom", p.RoomID(int32(r))); err != nil {
			return err
		}
	}
	return nil
}

// checkIDParts is the workload's own check of its prefix and run id.
func checkIDParts(prefix, runID string) error {
	for _, x := range []struct{ name, v string }{{"prefix", prefix}, {"runId", runID}} {
		if !LegalIDPart(x.v) {
			return fmt.Errorf("%s %s: ids take only letters, digits and '_' (what OpenIM, WuKongIM and Wildfire all accept)", x.name, strconv.Quote(x.v))
		}
	}
	return nil
}
