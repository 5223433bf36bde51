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
)

// lastKind sizes the per-kind counters: a kind added above (a chatroom)
// moves it.
const lastKind = Group

func (k Kind) String() string {
	switch k {
	case Direct:
		return "direct"
	case Group:
		return "group"
	}
	return "kind" + strconv.Itoa(int(k))
}

func (k Kind) valid() bool { return k >= Direct && k <= lastKind }

// ConvKey names a conversation whatever protocol carries it: a group by its
// id, a direct conversation by its two users. Front ends map their
// protocol's conversation ids to and from keys.
type ConvKey struct {
	Kind Kind
	ID   string // Group: the group id; Direct: the lesser user id (as strings compare)
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

// Conv is one conversation: its seq counter is the length of its history.
type Conv struct {
	mu   sync.Mutex
	key  ConvKey
	msgs []*Message
}
