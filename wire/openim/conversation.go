package openim

// SingleConversationID is the id of a one-to-one conversation: the two user
// ids sorted as strings.
func SingleConversationID(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return "si_" + a + "_" + b
}

// GroupConversationID is the id of a group's conversation.
func GroupConversationID(groupID string) string { return "sg_" + groupID }
