package wukongim

import "encoding/binary"

// Send is a client's message (§3 SEND). The server honours the
// NoPersist/RedDot/SyncOnce flags and copies them into the RECVs.
type Send struct {
	Flags       uint8
	Setting     uint8
	ClientSeq   uint32 // echoed in SENDACK; u32 on the wire
	ClientMsgNo string // echoed in RECV
	StreamNo    string // iff 2 <= version < 5 and Setting&SettingStream
	ChannelID   string // person channel: the peer's uid
	ChannelType uint8
	Expire      uint32 // iff version >= 3; seconds, 0 = never
	MsgKey      string // see Cipher.MsgKey; "" with encryption off
	Topic       string // iff Setting&SettingTopic
	Payload     []byte // the rest: base64 ciphertext text, or raw
}

// PacketType implements Packet.
func (Send) PacketType() PacketType { return TypeSend }

// Append implements Packet. A payload over MaxPayloadLen is refused, as the
// client library refuses it.
func (m Send) Append(dst []byte, version uint8) ([]byte, error) {
	if len(m.Payload) > MaxPayloadLen {
		return dst, ErrPayloadTooLarge
	}
	stream, topic := streamFields(version, m.Setting), m.Setting&SettingTopic != 0
	s := sizer{n: 1 + 4 + 1 + len(m.Payload)}
	s.str(m.ClientMsgNo)
	if stream {
		s.str(m.StreamNo)
	}
	s.str(m.ChannelID)
	if version >= 3 {
		s.n += 4
	}
	s.str(m.MsgKey)
	if topic {
		s.str(m.Topic)
	}
	dst, err := frameStart(dst, TypeSend, m.Flags, s)
	if err != nil {
		return dst, err
	}
	dst = append(dst, m.Setting)
	dst = binary.BigEndian.AppendUint32(dst, m.ClientSeq)
	dst = appendStr(dst, m.ClientMsgNo)
	if stream {
		dst = appendStr(dst, m.StreamNo)
	}
	dst = appendStr(dst, m.ChannelID)
	dst = append(dst, m.ChannelType)
	if version >= 3 {
		dst = binary.BigEndian.AppendUint32(dst, m.Expire)
	}
	dst = appendStr(dst, m.MsgKey)
	if topic {
		dst = appendStr(dst, m.Topic)
	}
	return append(dst, m.Payload...), nil
}

// AppendSign appends the string SEND's msgKey signs (see AppendSendSign).
func (m *Send) AppendSign(dst []byte) []byte {
	return AppendSendSign(dst, m.ClientSeq, m.ClientMsgNo, m.ChannelID, m.ChannelType, m.Payload)
}

// DecodeSend decodes a SEND body at the negotiated version.
func DecodeSend(flags uint8, body []byte, version uint8) (Send, error) {
	r := reader{b: body}
	m := Send{Flags: flags}
	m.Setting = r.u8()
	m.ClientSeq = r.u32()
	m.ClientMsgNo = r.str()
	if streamFields(version, m.Setting) {
		m.StreamNo = r.str()
	}
	m.ChannelID = r.str()
	m.ChannelType = r.u8()
	if version >= 3 {
		m.Expire = r.u32()
	}
	m.MsgKey = r.str()
	if m.Setting&SettingTopic != 0 {
		m.Topic = r.str()
	}
	m.Payload = r.rest()
	if r.err != nil {
		return Send{}, decodeErr(TypeSend, r.err)
	}
	return m, nil
}

// Sendack answers a SEND: a fixed 17-byte body; its flags copy SEND's.
type Sendack struct {
	Flags      uint8
	MessageID  int64
	ClientSeq  uint32
	MessageSeq uint32
	ReasonCode ReasonCode // ReasonSuccess, or e.g. ReasonPayloadDecodeError
}

// PacketType implements Packet.
func (Sendack) PacketType() PacketType { return TypeSendack }

// Append implements Packet.
func (a Sendack) Append(dst []byte, _ uint8) ([]byte, error) {
	dst, err := frameStart(dst, TypeSendack, a.Flags, sizer{n: 17})
	if err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.MessageID))
	dst = binary.BigEndian.AppendUint32(dst, a.ClientSeq)
	dst = binary.BigEndian.AppendUint32(dst, a.MessageSeq)
	return append(dst, byte(a.ReasonCode)), nil
}

// DecodeSendack decodes a SENDACK body.
func DecodeSendack(flags uint8, body []byte, _ uint8) (Sendack, error) {
	r := reader{b: body}
	a := Sendack{Flags: flags}
	a.MessageID = int64(r.u64())
	a.ClientSeq = r.u32()
	a.MessageSeq = r.u32()
	a.ReasonCode = ReasonCode(r.u8())
	if r.err != nil {
		return Sendack{}, decodeErr(TypeSendack, r.err)
	}
	return a, nil
}

// Recv delivers a message (§3 RECV). Its flags are SEND's NoPersist,
// SyncOnce and RedDot (RedDot cleared for the sender's own other devices);
// Setting is SEND's.
type Recv struct {
	Flags       uint8
	Setting     uint8
	MsgKey      string // see Cipher.MsgKey; "" with encryption off
	FromUID     string // "" for the system uid
	ChannelID   string // person channel: the sender's uid, as the recipient sees it
	ChannelType uint8
	Expire      uint32 // iff version >= 3
	ClientMsgNo string
	// StreamFlag, StreamNo and StreamID are on the wire iff
	// 2 <= version < 5 and Setting&SettingStream.
	StreamFlag uint8
	StreamNo   string
	StreamID   uint64
	MessageID  int64  // server-global (snowflake)
	MessageSeq uint32 // per channel
	Timestamp  int32  // server unix seconds
	Topic      string // iff Setting&SettingTopic
	Payload    []byte // the rest
}

// PacketType implements Packet.
func (Recv) PacketType() PacketType { return TypeRecv }

// Append implements Packet.
func (m Recv) Append(dst []byte, version uint8) ([]byte, error) {
	stream, topic := streamFields(version, m.Setting), m.Setting&SettingTopic != 0
	s := sizer{n: 1 + 1 + 8 + 4 + 4 + len(m.Payload)}
	s.str(m.MsgKey)
	s.str(m.FromUID)
	s.str(m.ChannelID)
	if version >= 3 {
		s.n += 4
	}
	s.str(m.ClientMsgNo)
	if stream {
		s.n += 1 + 8
		s.str(m.StreamNo)
	}
	if topic {
		s.str(m.Topic)
	}
	dst, err := frameStart(dst, TypeRecv, m.Flags, s)
	if err != nil {
		return dst, err
	}
	dst = append(dst, m.Setting)
	dst = appendStr(dst, m.MsgKey)
	dst = appendStr(dst, m.FromUID)
	dst = appendStr(dst, m.ChannelID)
	dst = append(dst, m.ChannelType)
	if version >= 3 {
		dst = binary.BigEndian.AppendUint32(dst, m.Expire)
	}
	dst = appendStr(dst, m.ClientMsgNo)
	if stream {
		dst = append(dst, m.StreamFlag)
		dst = appendStr(dst, m.StreamNo)
		dst = binary.BigEndian.AppendUint64(dst, m.StreamID)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.MessageID))
	dst = binary.BigEndian.AppendUint32(dst, m.MessageSeq)
	dst = binary.BigEndian.AppendUint32(dst, uint32(m.Timestamp))
	if topic {
		dst = appendStr(dst, m.Topic)
	}
	return append(dst, m.Payload...), nil
}

// AppendSign appends the string RECV's msgKey signs (see AppendRecvSign).
func (m *Recv) AppendSign(dst []byte) []byte {
	return AppendRecvSign(dst, m.MessageID, m.MessageSeq, m.ClientMsgNo, m.Timestamp,
		m.FromUID, m.ChannelID, m.ChannelType, m.Payload)
}

// DecodeRecv decodes a RECV body at the negotiated version.
func DecodeRecv(flags uint8, body []byte, version uint8) (Recv, error) {
	v, err := DecodeRecvView(flags, body, version)
	if err != nil {
		return Recv{}, err
	}
	return v.Recv(), nil
}

// RecvView is a RECV decoded without copying: its byte fields alias the
// body, so it is valid only while the body is. A receiver that reads each
// RECV once, and keeps none of it, decodes with no allocation.
type RecvView struct {
	Flags       uint8
	Setting     uint8
	MsgKey      []byte
	FromUID     []byte
	ChannelID   []byte
	ChannelType uint8
	Expire      uint32
	ClientMsgNo []byte
	StreamFlag  uint8
	StreamNo    []byte
	StreamID    uint64
	MessageID   int64
	MessageSeq  uint32
	Timestamp   int32
	Topic       []byte
	Payload     []byte
}

// DecodeRecvView is DecodeRecv into a view of body (see RecvView).
func DecodeRecvView(flags uint8, body []byte, version uint8) (RecvView, error) {
	r := reader{b: body}
	m := RecvView{Flags: flags}
	m.Setting = r.u8()
	m.MsgKey = r.strBytes()
	m.FromUID = r.strBytes()
	m.ChannelID = r.strBytes()
	m.ChannelType = r.u8()
	if version >= 3 {
		m.Expire = r.u32()
	}
	m.ClientMsgNo = r.strBytes()
	if streamFields(version, m.Setting) {
		m.StreamFlag = r.u8()
		m.StreamNo = r.strBytes()
		m.StreamID = r.u64()
	}
	m.MessageID = int64(r.u64())
	m.MessageSeq = r.u32()
	m.Timestamp = int32(r.u32())
	if m.Setting&SettingTopic != 0 {
		m.Topic = r.strBytes()
	}
	m.Payload = r.rest()
	if r.err != nil {
		return RecvView{}, decodeErr(TypeRecv, r.err)
	}
	return m, nil
}

// Recv copies the view's strings out of the body; Payload still aliases it.
func (m *RecvView) Recv() Recv {
	return Recv{Flags: m.Flags, Setting: m.Setting, MsgKey: string(m.MsgKey), FromUID: string(m.FromUID),
		ChannelID: string(m.ChannelID), ChannelType: m.ChannelType, Expire: m.Expire,
		ClientMsgNo: string(m.ClientMsgNo), StreamFlag: m.StreamFlag, StreamNo: string(m.StreamNo),
		StreamID: m.StreamID, MessageID: m.MessageID, MessageSeq: m.MessageSeq, Timestamp: m.Timestamp,
		Topic: string(m.Topic), Payload: m.Payload}
}

// Recvack acknowledges a RECV (12-byte body). Copy the RECV's flags into
// it: the server drops the message from its retry queue only when NoPersist
// is 0 (§3 RECVACK).
type Recvack struct {
	Flags      uint8
	MessageID  int64
	MessageSeq uint32
}

// PacketType implements Packet.
func (Recvack) PacketType() PacketType { return TypeRecvack }

// Append implements Packet.
func (a Recvack) Append(dst []byte, _ uint8) ([]byte, error) {
	dst, err := frameStart(dst, TypeRecvack, a.Flags, sizer{n: 12})
	if err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.MessageID))
	return binary.BigEndian.AppendUint32(dst, a.MessageSeq), nil
}

// DecodeRecvack decodes a RECVACK body.
func DecodeRecvack(flags uint8, body []byte, _ uint8) (Recvack, error) {
	r := reader{b: body}
	a := Recvack{Flags: flags}
	a.MessageID = int64(r.u64())
	a.MessageSeq = r.u32()
	if r.err != nil {
		return Recvack{}, decodeErr(TypeRecvack, r.err)
	}
	return a, nil
}
