package openim

import (
	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
)

// convID is OpenIM's id of a conversation: si_<a>_<b> or sg_<group>.
func convID(k core.ConvKey) string {
	if k.Kind == core.Group {
		return wire.GroupConversationID(k.ID)
	}
	return wire.SingleConversationID(k.ID, k.Peer)
}

// convKey reads the id of a conversation user asks about.
func convKey(id, user string) (core.ConvKey, bool) {
	if gid, ok := wire.ConversationGroup(id); ok {
		return core.GroupKey(gid), true
	}
	if peer, ok := wire.SinglePeer(id, user); ok {
		return core.DirectKey(user, peer), true
	}
	return core.ConvKey{}, false
}
