package core

import "fmt"

// Error is a refusal: it Is one of the sentinels below (errors.Is), and
// Detail says what was refused. Each front end maps the sentinels to its
// protocol's codes. The fields are exported so the cluster link can carry
// an Error between processes and it still Is its sentinel there.
type Error struct {
	Reason Reason
	Detail string
}

// Reason tells the sentinels apart; compare errors with errors.Is, not this.
type Reason uint8

const (
	badArgs Reason = iota + 1
	noPermission
	unknownUser
	unknownGroup
	exists
	self
	notMember
	tokenUnknown
	tokenInvalid
	tokenKicked
	tooManyConns
	unavailable
)

var reasonText = [...]string{
	badArgs:      "bad arguments",
	noPermission: "not permitted",
	unknownUser:  "unknown user",
	unknownGroup: "unknown group",
	exists:       "already exists",
	self:         "not with oneself",
	notMember:    "not a member",
	tokenUnknown: "unknown token",
	tokenInvalid: "token of another user or device",
	tokenKicked:  "token replaced by a newer one",
	tooManyConns: "too many connections",
	unavailable:  "server unavailable",
}

// The refusals the core makes.
var (
	ErrBadArgs      = &Error{Reason: badArgs}
	ErrNoPermission = &Error{Reason: noPermission} // wrong secret, or not an admin
	ErrUnknownUser  = &Error{Reason: unknownUser}
	ErrUnknownGroup = &Error{Reason: unknownGroup} // a group or a chatroom
	ErrExists       = &Error{Reason: exists}       // a user, group or friendship made twice
	ErrSelf         = &Error{Reason: self}         // befriending oneself
	ErrNotMember    = &Error{Reason: notMember}
	ErrTokenUnknown = &Error{Reason: tokenUnknown}
	ErrTokenInvalid = &Error{Reason: tokenInvalid}
	ErrTokenKicked  = &Error{Reason: tokenKicked}
	ErrTooManyConns = &Error{Reason: tooManyConns}
	ErrUnavailable  = &Error{Reason: unavailable} // the core cannot be reached
)

func (e *Error) Error() string {
	text := "refused"
	if int(e.Reason) < len(reasonText) && reasonText[e.Reason] != "" {
		text = reasonText[e.Reason]
	}
	if e.Detail == "" {
		return text
	}
	return text + ": " + e.Detail
}

// Is reports whether target is the sentinel (or any Error) of e's reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

// With returns the refusal e (a sentinel) with a detail.
func (e *Error) With(format string, a ...any) *Error {
	return &Error{Reason: e.Reason, Detail: fmt.Sprintf(format, a...)}
}
