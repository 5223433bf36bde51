package wildfire

import (
	"errors"
	"strings"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// validID reports an id the core and the real server's columns take: not
// empty, at most 64 characters, no ':' (the core's separator).
func validID(id string) bool {
	return id != "" && len(id) <= wire.MaxIDLen && !strings.Contains(id, ":")
}

// ensureUsers registers the users of ids the core does not know and gives
// every one a feed: the real server takes any user id in a token or a
// group.
func (f *FrontEnd) ensureUsers(ids ...string) wire.ErrorCode {
	known := f.c.Registered(ids)
	for _, id := range ids {
		if len(id) > wire.MaxIDLen {
			// The real server's insert into a varchar(64) column fails:
			// the SQL exception comes back as a server error.
			return wire.CodeServerError
		}
		if !validID(id) {
			return wire.CodeInvalidParameter
		}
		if !known[id] {
			if err := f.c.Register([]string{id}); err != nil && !errors.Is(err, core.ErrExists) {
				return apiCode(err)
			}
		}
		f.keep(id)
	}
	return wire.CodeSuccess
}

// userCreate creates a user (name required; an empty userId gets one); an
// existing userId is answered as if created.
func (a *api) userCreate(body []byte) (any, wire.ErrorCode) {
	var req wire.CreateUserReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if req.Name == "" {
		return nil, wire.CodeInvalidParameter
	}
	if req.UserID == "" {
		req.UserID = strings.ReplaceAll(uuid(), "-", "")[:16]
	}
	if code := a.f.ensureUsers(req.UserID); code != wire.CodeSuccess {
		return nil, code
	}
	return wire.CreateUserResult{UserID: req.UserID, Name: req.Name}, wire.CodeSuccess
}

// getToken creates or reuses the session of clientId (wildfire.md §3.3),
// creating the user when it does not exist.
func (a *api) getToken(body []byte) (any, wire.ErrorCode) {
	var req wire.GetTokenReq
	if code := decode(body, &req); code != wire.CodeSuccess {
		return nil, code
	}
	if !validID(req.ClientID) {
		return nil, wire.CodeInvalidParameter
	}
	if code := a.f.ensureUsers(req.UserID); code != wire.CodeSuccess {
		return nil, code
	}
	token, err := a.f.issue(req.UserID, req.ClientID, req.Platform)
	if err != nil {
		return nil, wire.CodeServerError
	}
	return wire.GetTokenResult{UserID: req.UserID, Token: token}, wire.CodeSuccess
}

// onlineCount is the users with a Wildfire connection, on the one node.
func (a *api) onlineCount([]byte) (any, wire.ErrorCode) {
	return []wire.OnlineCountNode{{Node: DefaultNode, Count: a.f.OnlineUsers()}}, wire.CodeSuccess
}
