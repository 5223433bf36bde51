package openim

import "testing"

func TestConversationIDsParseBack(t *testing.T) {
	for _, pair := range [][2]string{{"u1", "u2"}, {"a", "a_b"}, {"a_b", "a"}, {"x_1", "x_1_2"}, {"b", "a_b_a"}, {"same", "same"}} {
		me, peer := pair[0], pair[1]
		id := SingleConversationID(me, peer)
		if got, ok := SinglePeer(id, me); !ok || got != peer {
			t.Errorf("SinglePeer(%q, %q) = %q %v, want %q", id, me, got, ok, peer)
		}
	}
	if _, ok := SinglePeer(SingleConversationID("u1", "u2"), "u3"); ok {
		t.Error("a conversation of others parsed for a third user")
	}
	if _, ok := SinglePeer(GroupConversationID("g"), "g"); ok {
		t.Error("a group id parsed as one-to-one")
	}
	if g, ok := ConversationGroup(GroupConversationID("g_1")); !ok || g != "g_1" {
		t.Errorf("group id: %q %v", g, ok)
	}
	if _, ok := ConversationGroup(SingleConversationID("a", "b")); ok {
		t.Error("a one-to-one id parsed as a group's")
	}
}
