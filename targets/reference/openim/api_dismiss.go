package openim

import (
	"errors"
	"net/http"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
)

// dismissGroup is /group/dismiss_group (open-im-server v3.8 internal/rpc/
// group DismissGroup; protocol group.proto DismissGroupReq {groupID,
// deleteMember}): the admin dismisses any group, a user only one it owns
// (1002). A group without an owner to find is 1004, as the real server's
// owner lookup answers for one that never was or was dismissed with its
// members. The real server keeps the group marked dismissed (status 2),
// with its members unless deleteMember, and then notifies them; this one
// forgets the group and notifies no one.
func (a *API) dismissGroup(_ *http.Request, who caller, body []byte) (any, error) {
	var req struct {
		GroupID      string `json:"groupID"`
		DeleteMember bool   `json:"deleteMember"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	owner, err := a.Core.GroupOwner(req.GroupID)
	if errors.Is(err, core.ErrUnknownGroup) {
		return nil, refuse(wire.CodeRecordNotFound, "group %s owner not found", req.GroupID)
	}
	if err != nil {
		return nil, err
	}
	if !who.admin && who.user != owner {
		return nil, refuse(wire.CodeNoPermission, "not group owner")
	}
	if err := a.Core.DismissGroup(req.GroupID); err != nil {
		return nil, err
	}
	a.meta.forgetGroup(req.GroupID)
	return nil, nil
}

// forgetGroup drops what is kept of a dismissed group.
func (m *meta) forgetGroup(id string) {
	m.mu.Lock()
	delete(m.groups, id)
	m.mu.Unlock()
}
