package wukongim

import "encoding/binary"

// Sub subscribes to or leaves a channel (§3 SUB). v2.2.x servers route only
// SEND, RECVACK and PING from clients (internal/user/handler/event_onsend.go)
// and ignore SUB: join channels through the HTTP API instead (api.go).
type Sub struct {
	Flags       uint8
	Setting     uint8
	SubNo       string
	ChannelID   string
	ChannelType uint8
	Action      uint8 // ActionSubscribe or ActionUnsubscribe
	Param       string
}

// PacketType implements Packet.
func (Sub) PacketType() PacketType { return TypeSub }

// Append implements Packet.
func (m Sub) Append(dst []byte, _ uint8) ([]byte, error) {
	s := sizer{n: 1 + 1 + 1}
	s.str(m.SubNo)
	s.str(m.ChannelID)
	s.str(m.Param)
	dst, err := frameStart(dst, TypeSub, m.Flags, s)
	if err != nil {
		return dst, err
	}
	dst = append(dst, m.Setting)
	dst = appendStr(dst, m.SubNo)
	dst = appendStr(dst, m.ChannelID)
	dst = append(dst, m.ChannelType, m.Action)
	return appendStr(dst, m.Param), nil
}

// DecodeSub decodes a SUB body.
func DecodeSub(flags uint8, body []byte, _ uint8) (Sub, error) {
	r := reader{b: body}
	m := Sub{Flags: flags}
	m.Setting = r.u8()
	m.SubNo = r.str()
	m.ChannelID = r.str()
	m.ChannelType = r.u8()
	m.Action = r.u8()
	m.Param = r.str()
	if r.err != nil {
		return Sub{}, decodeErr(TypeSub, r.err)
	}
	return m, nil
}

// Suback answers a SUB.
type Suback struct {
	Flags       uint8
	SubNo       string
	ChannelID   string
	ChannelType uint8
	Action      uint8
	ReasonCode  ReasonCode
}

// PacketType implements Packet.
func (Suback) PacketType() PacketType { return TypeSuback }

// Append implements Packet.
func (m Suback) Append(dst []byte, _ uint8) ([]byte, error) {
	s := sizer{n: 1 + 1 + 1}
	s.str(m.SubNo)
	s.str(m.ChannelID)
	dst, err := frameStart(dst, TypeSuback, m.Flags, s)
	if err != nil {
		return dst, err
	}
	dst = appendStr(dst, m.SubNo)
	dst = appendStr(dst, m.ChannelID)
	return append(dst, m.ChannelType, m.Action, byte(m.ReasonCode)), nil
}

// DecodeSuback decodes a SUBACK body.
func DecodeSuback(flags uint8, body []byte, _ uint8) (Suback, error) {
	r := reader{b: body}
	m := Suback{Flags: flags}
	m.SubNo = r.str()
	m.ChannelID = r.str()
	m.ChannelType = r.u8()
	m.Action = r.u8()
	m.ReasonCode = ReasonCode(r.u8())
	if r.err != nil {
		return Suback{}, decodeErr(TypeSuback, r.err)
	}
	return m, nil
}

// Event is a server-pushed event (GoProto v1.2.3, stream/AI messages); a
// load client may ignore it.
type Event struct {
	Flags     uint8
	ID        string // may be empty
	Type      string
	Timestamp int64
	Data      []byte // the rest
}

// PacketType implements Packet.
func (Event) PacketType() PacketType { return TypeEvent }

// Append implements Packet.
func (e Event) Append(dst []byte, _ uint8) ([]byte, error) {
	s := sizer{n: 8 + len(e.Data)}
	s.str(e.ID)
	s.str(e.Type)
	dst, err := frameStart(dst, TypeEvent, e.Flags, s)
	if err != nil {
		return dst, err
	}
	dst = appendStr(dst, e.ID)
	dst = appendStr(dst, e.Type)
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.Timestamp))
	return append(dst, e.Data...), nil
}

// DecodeEvent decodes an EVENT body.
func DecodeEvent(flags uint8, body []byte, _ uint8) (Event, error) {
	r := reader{b: body}
	e := Event{Flags: flags}
	e.ID = r.str()
	e.Type = r.str()
	e.Timestamp = int64(r.u64())
	e.Data = r.rest()
	if r.err != nil {
		return Event{}, decodeErr(TypeEvent, r.err)
	}
	return e, nil
}
