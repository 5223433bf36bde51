package wildfire

import (
	wire "github.com/imbench/imbench/wire/wildfire"
)

// userGetInfo is /admin/user/get_info (GetUserAction): 251 with neither a
// userId, a name nor a mobile; 253 for a user unknown or destroyed. This
// target keeps no profile: a user's name is its id (as imbench creates
// them), and a lookup by name is one by id; none by mobile is found.
func (a *api) userGetInfo(body []byte) (any, wire.ErrorCode) {
	var req wire.GetUserInfoReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	id := req.UserID
	if id == "" {
		id = req.Name
	}
	if id == "" && req.Mobile == "" {
		return nil, wire.CodeInvalidParameter
	}
	if id == "" || !a.f.c.Registered([]string{id})[id] {
		return nil, wire.CodeNotExist
	}
	return wire.UserInfo{UserID: id, Name: id, DisplayName: id}, wire.CodeSuccess
}

// groupGetInfo is /admin/group/get_info (GetGroupInfoAction): 251 without
// a groupId, 253 for a group unknown or dismissed.
func (a *api) groupGetInfo(body []byte) (any, wire.ErrorCode) {
	var req wire.GetGroupReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if req.GroupID == "" {
		return nil, wire.CodeInvalidParameter
	}
	owner, err := a.f.c.GroupOwner(req.GroupID)
	if err != nil {
		return nil, apiCode(err)
	}
	return wire.GroupInfo{TargetID: req.GroupID, Name: req.GroupID, Owner: owner, Type: int(wire.GroupNormal)}, wire.CodeSuccess
}
