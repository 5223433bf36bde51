package openim

import "strings"

// ConversationGroup returns the group of a group conversation id.
func ConversationGroup(id string) (groupID string, ok bool) {
	return strings.CutPrefix(id, GroupConversationID(""))
}

// SinglePeer returns the other user of a one-to-one conversation id that
// user is in. User ids may hold underscores, so the id is split where
// user's own id stands, and the split is checked by building the id back.
func SinglePeer(id, user string) (peer string, ok bool) {
	rest, ok := strings.CutPrefix(id, "si_")
	if !ok {
		return "", false
	}
	if p, ok := strings.CutPrefix(rest, user+"_"); ok && SingleConversationID(user, p) == id {
		return p, true
	}
	if p, ok := strings.CutSuffix(rest, "_"+user); ok && SingleConversationID(user, p) == id {
		return p, true
	}
	return "", false
}
