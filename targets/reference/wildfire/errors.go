package wildfire

import (
	"errors"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// sendCode answers the core's refusal of a message (or a chatroom join) to
// a conversation of kind k as the real server does (wildfire.md §5.5, §14):
// a sender not in a group is 9, not in a chatroom 4; an unknown user,
// group or chatroom 253; a malformed id 251; anything else (the server
// unable to) 4.
func sendCode(err error, k core.Kind) wire.ErrorCode {
	switch {
	case errors.Is(err, core.ErrNotMember):
		if k == core.Room {
			return wire.CodeServerError
		}
		return wire.CodeNotInGroup
	case errors.Is(err, core.ErrUnknownUser), errors.Is(err, core.ErrUnknownGroup):
		return wire.CodeNotExist
	case errors.Is(err, core.ErrBadArgs):
		return wire.CodeInvalidParameter
	}
	return wire.CodeServerError
}

// apiCode answers the core's refusal of an admin call.
func apiCode(err error) wire.ErrorCode {
	switch {
	case errors.Is(err, core.ErrExists):
		return wire.CodeGroupAlreadyExist
	case errors.Is(err, core.ErrUnknownUser), errors.Is(err, core.ErrUnknownGroup):
		return wire.CodeNotExist
	case errors.Is(err, core.ErrBadArgs):
		return wire.CodeInvalidParameter
	}
	return wire.CodeServerError
}

// apiMsgs are the real server's msg texts (ErrorCode.java) for the codes
// this front end answers on the admin API.
var apiMsgs = map[wire.ErrorCode]string{
	wire.CodeSuccess:           "success",
	wire.CodeInvalidData:       "invalid data",
	wire.CodeServerError:       "server error",
	wire.CodeNotInGroup:        "not in group",
	wire.CodeGroupAlreadyExist: "group already exist",
	wire.CodeAPINotSigned:      "api not signed or sign parameter not completion",
	wire.CodeSignExpired:       "sign expired",
	wire.CodeAuthFailure:       "auth failure",
	wire.CodeTimeout:           "timeout",
	wire.CodeOverFrequency:     "over frequency",
	wire.CodeInvalidParameter:  "Invalid parameter",
	wire.CodeNotExist:          "not exist",
	wire.CodeNotImplement:      "not implement",
}

// apiMsg is an admin answer's msg for code: the real server's text, else
// the code's name.
func apiMsg(code wire.ErrorCode) string {
	if m, ok := apiMsgs[code]; ok {
		return m
	}
	return code.String()
}
