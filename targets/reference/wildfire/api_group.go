package wildfire

import (
	"strings"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// groupCreate creates a group: its owner is group_info.owner, else the
// operator, added as a member; target_id empty gets one, an existing one is
// 11. Members the core does not know are registered, as the real server
// takes any id.
func (a *api) groupCreate(body []byte) (any, wire.ErrorCode) {
	var req wire.CreateGroupReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	owner := req.Group.GroupInfo.Owner
	if owner == "" {
		owner = req.Operator
	}
	if owner == "" || (req.Group.GroupInfo.TargetID != "" && !validID(req.Group.GroupInfo.TargetID)) {
		return nil, wire.CodeInvalidParameter
	}
	members := memberIDs(req.Group.Members, owner)
	if code := a.f.ensureUsers(append([]string{owner}, members...)...); code != wire.CodeSuccess {
		return nil, code
	}
	var id string
	code := a.f.timedOut(false, func() wire.ErrorCode {
		var err error
		if id, err = a.f.c.CreateGroup(req.Group.GroupInfo.TargetID, owner, members); err != nil {
			return apiCode(err)
		}
		return wire.CodeSuccess
	})
	if code != wire.CodeSuccess {
		return nil, code
	}
	return wire.CreateGroupResult{GroupID: id}, wire.CodeSuccess
}

// groupMemberAdd adds members to a group (253 when there is none).
func (a *api) groupMemberAdd(body []byte) (any, wire.ErrorCode) {
	var req wire.AddGroupMemberReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if req.GroupID == "" {
		return nil, wire.CodeInvalidParameter
	}
	if _, err := a.f.c.Members(req.GroupID); err != nil {
		return nil, apiCode(err)
	}
	members := memberIDs(req.Members, "")
	if len(members) == 0 {
		return nil, wire.CodeInvalidParameter
	}
	if code := a.f.ensureUsers(members...); code != wire.CodeSuccess {
		return nil, code
	}
	return nil, a.f.timedOut(false, func() wire.ErrorCode {
		if err := a.f.c.AddMembers(req.GroupID, members); err != nil {
			return apiCode(err)
		}
		return wire.CodeSuccess
	})
}

// memberIDs lists the members' ids once each, but for skip.
func memberIDs(ms []wire.GroupMemberJSON, skip string) []string {
	seen := map[string]bool{skip: true}
	var out []string
	for _, m := range ms {
		if !seen[m.MemberID] {
			seen[m.MemberID] = true
			out = append(out, m.MemberID)
		}
	}
	return out
}

// chatroomCreate makes a chatroom (title required; an empty chatroomId gets
// one); clients join it with CRJ. An existing one is answered as if made.
func (a *api) chatroomCreate(body []byte) (any, wire.ErrorCode) {
	var req wire.CreateChatroomReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if req.Title == "" || (req.ChatroomID != "" && !validID(req.ChatroomID)) {
		return nil, wire.CodeInvalidParameter
	}
	if req.ChatroomID == "" {
		req.ChatroomID = "chatroom" + strings.ReplaceAll(uuid(), "-", "")[:12]
	}
	if err := a.f.c.JoinRoom(req.ChatroomID); err != nil {
		return nil, apiCode(err)
	}
	a.f.mu.Lock()
	a.f.rooms[req.ChatroomID] = true
	a.f.mu.Unlock()
	return wire.CreateChatroomResult{ChatroomID: req.ChatroomID}, wire.CodeSuccess
}
