package wildfire

import (
	"errors"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// The deletions of the real server's admin API (im-server 1.2.4 action/
// admin DestroyUserAction, DismissGroupAction, DestoryChatroomAction).
// Where the real server keeps a row marked deleted, dismissed or ended,
// this one forgets it.

// userDestroy is /admin/user/destroy: 251 without a userId, else 0 for
// any id, as the real server answers before it does the work. The user's
// sessions and feed go, then the user, whose connections are kicked.
func (a *api) userDestroy(body []byte) (any, wire.ErrorCode) {
	var req wire.DestroyUserReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if req.UserID == "" {
		return nil, wire.CodeInvalidParameter
	}
	return nil, a.f.timedOut(true, func() wire.ErrorCode {
		a.f.forgetUser(req.UserID)
		if err := a.f.c.DeleteUser(req.UserID); err != nil && !errors.Is(err, core.ErrUnknownUser) {
			return apiCode(err)
		}
		return wire.CodeSuccess
	})
}

// groupDismiss is /admin/group/del: 251 without a group_id or an
// operator, 253 for a group that does not exist. An admin call skips the
// owner check; the real server's dismissal notification is not sent.
func (a *api) groupDismiss(body []byte) (any, wire.ErrorCode) {
	var req wire.DismissGroupReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if req.GroupID == "" || req.Operator == "" {
		return nil, wire.CodeInvalidParameter
	}
	if !a.f.c.HasGroup(req.GroupID) {
		return nil, wire.CodeNotExist
	}
	return nil, a.f.timedOut(true, func() wire.ErrorCode {
		if err := a.f.c.DismissGroup(req.GroupID); err != nil {
			return apiCode(err)
		}
		return wire.CodeSuccess
	})
}

// timedOut does an admin write's work (a destroy, a dismissal, a group's
// creation, a member add) and answers its code: 249 "timeout" for every
// AdminTimeoutEvery-th one, as the real server answered under a backlog
// and did them all the same (its admin calls wait on the IM side's answer,
// AdminAction.sendApiMessage). A removal's work is done AdminTimeoutDelay
// later when set (the real server's backlog outlasted a client's first
// rechecks); other work before the answer, as a backlog served in order
// does a write before the same write asked again (a timer would not, and
// a creation landing after the run's dismissal would leave a group).
func (f *FrontEnd) timedOut(removal bool, work func() wire.ErrorCode) wire.ErrorCode {
	n := f.AdminTimeoutEvery
	if n <= 0 || f.adminWrites.Add(1)%int64(n) != 0 {
		return work()
	}
	f.Metrics.adminTimeouts.Inc()
	if d := f.AdminTimeoutDelay; d > 0 && removal {
		time.AfterFunc(d, func() { work() })
		return wire.CodeTimeout
	}
	if code := work(); code != wire.CodeSuccess {
		return code
	}
	return wire.CodeTimeout
}

// chatroomDel is /admin/chatroom/del: 251 without a chatroomId, else 0,
// for a chatroom that does not exist too.
func (a *api) chatroomDel(body []byte) (any, wire.ErrorCode) {
	var req wire.DestroyChatroomReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if req.ChatroomID == "" {
		return nil, wire.CodeInvalidParameter
	}
	a.f.mu.Lock()
	delete(a.f.rooms, req.ChatroomID)
	a.f.mu.Unlock()
	if err := a.f.c.DeleteRoom(req.ChatroomID); err != nil && !errors.Is(err, core.ErrUnknownGroup) {
		return nil, apiCode(err)
	}
	return nil, wire.CodeSuccess
}

// forgetUser drops user's sessions, so their clients cannot log in again,
// and its feed with what it held (the core kicks the connections).
func (f *FrontEnd) forgetUser(user string) {
	f.mu.Lock()
	for _, s := range f.byUser[user] {
		delete(f.sessions, s.clientID)
	}
	delete(f.byUser, user)
	fd := f.feeds[user]
	delete(f.feeds, user)
	f.mu.Unlock()
	if fd == nil {
		return
	}
	held := 0
	fd.mu.Lock()
	for t := range fd.q {
		held += len(fd.q[t].msgs)
		fd.q[t].msgs = nil // a pull of a connection still open trims nothing more
	}
	fd.mu.Unlock()
	f.Metrics.trimmed(held)
}
