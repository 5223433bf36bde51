package openim

import (
	"errors"
	"fmt"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
)

// refusal is an OpenIM error answer: errCode, errMsg, errDlt.
type refusal struct {
	Code int
	Msg  string
	Dlt  string
}

func (r *refusal) Error() string { return fmt.Sprintf("errCode %d %s: %s", r.Code, r.Msg, r.Dlt) }

// errMsg is the name this server answers each code with.
var errMsg = map[int]string{
	wire.CodeServerInternal: "ServerInternalError",
	wire.CodeArgs:           "ArgsError",
	wire.CodeNoPermission:   "NoPermissionError",
	wire.CodeRecordNotFound: "RecordNotFoundError",
	wire.CodeUserNotFound:   "UserIDNotFoundError",
	wire.CodeRegistered:     "RegisteredAlreadyError",
	wire.CodeGroupNotFound:  "GroupIDNotFound",
	wire.CodeGroupExisted:   "GroupIDExisted",
	wire.CodeNotInGroup:     "NotInGroupYetError",
	wire.CodeCannotAddSelf:  "CanNotAddYourselfError",
	wire.CodeRelationship:   "RelationshipAlreadyError",
	wire.CodeTokenInvalid:   "TokenInvalidError",
	wire.CodeTokenMalformed: "TokenMalformedError",
	wire.CodeTokenKicked:    "TokenKickedError",
	wire.CodeTokenNotExist:  "TokenNotExistError",
	wire.CodeConnOverMax:    "ConnOverMaxNumLimit",
	wire.CodeConnArgs:       "ConnArgsErr",
}

// codes maps the core's refusals. core.ErrExists has no entry: what already
// exists decides the code (see existsAs).
var codes = []struct {
	err  error
	code int
}{
	{core.ErrBadArgs, wire.CodeArgs},
	{core.ErrNoPermission, wire.CodeNoPermission},
	{core.ErrUnknownUser, wire.CodeUserNotFound},
	{core.ErrUnknownGroup, wire.CodeGroupNotFound},
	{core.ErrSelf, wire.CodeCannotAddSelf},
	{core.ErrNotMember, wire.CodeNotInGroup},
	{core.ErrTokenUnknown, wire.CodeTokenNotExist},
	{core.ErrTokenInvalid, wire.CodeTokenInvalid},
	{core.ErrTokenKicked, wire.CodeTokenKicked},
	{core.ErrTooManyConns, wire.CodeConnOverMax},
	{core.ErrUnavailable, wire.CodeServerInternal},
}

func refuse(code int, format string, a ...any) *refusal {
	return &refusal{Code: code, Msg: errMsg[code], Dlt: fmt.Sprintf(format, a...)}
}

// refusalOf answers err as OpenIM would: a refusal made here as it is, a
// core refusal by its code, anything else as a server error.
func refusalOf(err error) *refusal {
	var r *refusal
	if errors.As(err, &r) {
		return r
	}
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return refuse(c.code, "%s", detail(err))
		}
	}
	return refuse(wire.CodeServerInternal, "%s", detail(err))
}

// existsAs gives core.ErrExists the code of what the caller created.
func existsAs(err error, code int) error {
	if errors.Is(err, core.ErrExists) {
		return refuse(code, "%s", detail(err))
	}
	return err
}

func detail(err error) string {
	var ce *core.Error
	if errors.As(err, &ce) && ce.Detail != "" {
		return ce.Detail
	}
	return err.Error()
}
