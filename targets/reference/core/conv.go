package core

import (
	"strconv"
	"sync"
)

// Kind is the kind of a conversation.
type Kind uint8

const (
	Direct Kind = iota + 1 // two users
	Group                  // a group's members, with the group's history
	Room                   // a chatroom: whoever joined it when a message is sent, no history
)

// lastKind sizes the per-kind counters: a kind added above moves it.
const lastKind = Room

func (k Kind) String() string {
	switch k {
	case Direct:
		return "direct"
	case Group:
		return "group"
	case Room:
		return "room"
	}
	return "kind" + strconv.Itoa(int(k))
}

func (k Kind) valid() bool { return k >= Direct && k <= lastKind }

// keepsHistory reports whether a kind's messages are stored for pulls: a
// chatroom's are numbered and pushed, then forgotten.
func (k Kind) keepsHistory() bool { return k != Room }

// ConvKey names a conversation whatever protocol carries it: a group or a
// chatroom by its id, a direct conversation by its two users. Front ends map their
// protocol's conversation ids to and from keys.
type ConvKey struct {
	Kind Kind
	ID   string // Group, Room: the group's or room's id; Direct: the lesser user id (as strings compare)
	Peer string // Direct: the greater user id
}

// DirectKey is the conversation of users a and b, in either order.
func DirectKey(a, b string) ConvKey {
	if b < a {
		a, b = b, a
	}
	return ConvKey{Kind: Direct, ID: a, Peer: b}
}

// GroupKey is the conversation of a group.
func GroupKey(groupID string) ConvKey { return ConvKey{Kind: Group, ID: groupID} }

// RoomKey is the conversation of a chatroom.
func RoomKey(roomID string) ConvKey { return ConvKey{Kind: Room, ID: roomID} }

// Conv is one conversation: its seq counter and, for the kinds that keep
// one, its history (then as long as the counter says).
type Conv struct {
	mu   sync.Mutex
	key  ConvKey
	seq  int64      // the last seq given
	msgs []*Message // seqs 1..seq; none for a chatroom

	bmu     sync.Mutex
	pending *pending // the batch fault's messages of the current window
}
