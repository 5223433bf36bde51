package wukongim

import (
	"encoding/binary"
	"errors"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// stored is what the core keeps of a WuKongIM message in its opaque
// payload, beside the sender (core.Message.Sender) and clientMsgNo
// (core.Message.ClientID): the plaintext as the client meant it and the
// SEND fields a RECV and a sync give back. Origin names the connection that
// sent it, which gets no RECV of its own message (0: sent through the API).
type stored struct {
	Flags     uint8 // SEND's NoPersist, RedDot and SyncOnce
	Setting   uint8
	Expire    uint32
	MessageID int64
	Origin    uint64
	Topic     string
	Plain     []byte
}

// payloadMagic marks this front end's payloads: a message another front end
// of the process stored does not decode as one.
var payloadMagic = [3]byte{'w', 'k', 1}

var errForeign = errors.New("wukongim: not a WuKongIM message")

const headerFlags = wire.FlagNoPersist | wire.FlagRedDot | wire.FlagSyncOnce

func (s *stored) encode() []byte {
	b := make([]byte, 0, len(payloadMagic)+2+4+8+8+2+len(s.Topic)+len(s.Plain))
	b = append(b, payloadMagic[:]...)
	b = append(b, s.Flags&headerFlags, s.Setting)
	b = binary.BigEndian.AppendUint32(b, s.Expire)
	b = binary.BigEndian.AppendUint64(b, uint64(s.MessageID))
	b = binary.BigEndian.AppendUint64(b, s.Origin)
	b = binary.BigEndian.AppendUint16(b, uint16(len(s.Topic)))
	b = append(b, s.Topic...)
	return append(b, s.Plain...)
}

func decodeStored(b []byte) (stored, error) {
	const fixed = len(payloadMagic) + 2 + 4 + 8 + 8 + 2
	if len(b) < fixed || [3]byte(b[:3]) != payloadMagic {
		return stored{}, errForeign
	}
	s := stored{Flags: b[3], Setting: b[4], Expire: binary.BigEndian.Uint32(b[5:]),
		MessageID: int64(binary.BigEndian.Uint64(b[9:])), Origin: binary.BigEndian.Uint64(b[17:])}
	n := int(binary.BigEndian.Uint16(b[25:]))
	if len(b) < fixed+n {
		return stored{}, errForeign
	}
	s.Topic = string(b[fixed : fixed+n])
	s.Plain = b[fixed+n:]
	return s, nil
}

// convOf is the conversation a channel names for uid: a person channel is
// named by the peer's uid, a live channel is a chatroom.
func convOf(uid, channelID string, channelType uint8) (core.ConvKey, bool) {
	if channelID == "" || !validID(channelID) {
		return core.ConvKey{}, false
	}
	switch channelType {
	case wire.ChannelPerson:
		return core.DirectKey(uid, channelID), true
	case wire.ChannelGroup:
		return core.GroupKey(channelID), true
	case wire.ChannelLive:
		return core.RoomKey(channelID), true
	}
	return core.ConvKey{}, false
}

// servedType reports whether the reference serves a channel type.
func servedType(t uint8) bool {
	return t == wire.ChannelPerson || t == wire.ChannelGroup || t == wire.ChannelLive
}

// channelOf is how a message's channel is named to viewer: a group or a
// chatroom (live channel) by its id; a person channel by the party other
// than viewer (a RECV's recipient sees the sender, the sender's own devices
// the peer).
func channelOf(k core.ConvKey, viewer string) (string, uint8) {
	switch k.Kind {
	case core.Group:
		return k.ID, wire.ChannelGroup
	case core.Room:
		return k.ID, wire.ChannelLive
	}
	if viewer == k.ID {
		return k.Peer, wire.ChannelPerson
	}
	return k.ID, wire.ChannelPerson
}

// validID is the real server's rule for user and channel ids.
func validID(id string) bool { return wire.LegalID(id) }

// headerOf is a message's header flags as the API writes them.
func headerOf(flags uint8) wire.MessageHeader {
	bit := func(f uint8) int {
		if flags&f != 0 {
			return 1
		}
		return 0
	}
	return wire.MessageHeader{NoPersist: bit(wire.FlagNoPersist), RedDot: bit(wire.FlagRedDot), SyncOnce: bit(wire.FlagSyncOnce)}
}

// flagsOf is the reverse of headerOf.
func flagsOf(h wire.MessageHeader) uint8 {
	var f uint8
	if h.NoPersist == 1 {
		f |= wire.FlagNoPersist
	}
	if h.RedDot == 1 {
		f |= wire.FlagRedDot
	}
	if h.SyncOnce == 1 {
		f |= wire.FlagSyncOnce
	}
	return f
}
