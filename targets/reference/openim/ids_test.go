package openim_test

import (
	"testing"

	wire "github.com/imbench/imbench/wire/openim"
)

// The reference target takes the user ids open-im-server v3.8 takes
// (letters, digits and '_') and refuses the rest as it does: 1001
// ArgsError "userID is legal", for the whole batch. A group it never had
// is 1004 when dismissed, with the real server's detail.
func TestUserIDRuleAndUnknownGroup(t *testing.T) {
	s := start(t, false)
	for _, id := range []string{"20261127-054600-1b4c9c_u0", "a@b", "a:b", "a b"} {
		_, env := s.call(t, "/user/user_register", s.admin, map[string]any{"users": []map[string]any{{"userID": "ok_1", "nickname": "x"}, {"userID": id, "nickname": "x"}}})
		if int(env["errCode"].(float64)) != wire.CodeArgs || env["errMsg"] != "ArgsError" || env["errDlt"] != "userID is legal" {
			t.Errorf("register %q: %v, want 1001 ArgsError userID is legal", id, env)
		}
	}
	// Nothing of a refused batch was registered.
	s.ok(t, "/user/user_register", s.admin, map[string]any{"users": []map[string]any{{"userID": "ok_1", "nickname": "x"}, {"userID": "20261127_054600_1b4c9c_u0", "nickname": "x"}}}, nil)

	_, env := s.call(t, "/group/dismiss_group", s.admin, map[string]any{"groupID": "never_there", "deleteMember": true})
	if int(env["errCode"].(float64)) != wire.CodeRecordNotFound || env["errDlt"] != "group never_there owner not found" {
		t.Errorf("dismissing a group that never was: %v", env)
	}
}
