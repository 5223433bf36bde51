package wukongim

import (
	"errors"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// reasons maps the core's refusals of a SEND to SENDACK reason codes
// (wukongim.md §5 Permissions, §6).
var reasons = []struct {
	err    error
	reason wire.ReasonCode
}{
	{core.ErrNotMember, wire.ReasonSubscriberNotExist},
	// The real server finds no channel info for an unknown group and
	// checks the sender against its (empty) subscribers: reason 3, never 5
	// (internal/service/permission.go).
	{core.ErrUnknownGroup, wire.ReasonSubscriberNotExist},
	{core.ErrUnknownUser, wire.ReasonChannelNotExist}, // a person channel to a uid that never got a token
	{core.ErrBadArgs, wire.ReasonChannelIDError},
}

// reasonOf answers a refused SEND; anything unmapped (the core unreachable
// among them) is a system error.
func reasonOf(err error) wire.ReasonCode {
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	return wire.ReasonSystemError
}
