package wildfire

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// Connect is the client's first frame (§5.3): MQTT 3.1.1's layout, the
// flags deciding which payload fields follow. A load client sends
// NewConnect's: level 4, flags 0xC2, username = user id, password =
// ConnectPassword.
type Connect struct {
	ProtocolName string // "MQTT" ("MQIsdp" at level 3)
	Level        uint8  // LevelMQTT311 or LevelWF2; LevelMQTT5 is not decoded
	Flags        uint8  // ConnectFlag* bits
	KeepAlive    uint16 // seconds; the server's idle timeout is 1.5 times this, 0 disables it
	ClientID     string // the clientId given to get_token; non-empty
	WillTopic    string // iff Flags&ConnectFlagWill
	WillMessage  []byte // iff Flags&ConnectFlagWill
	Username     string // iff Flags&ConnectFlagUsername: the user id
	Password     []byte // iff Flags&ConnectFlagPassword: wfAES(secret) of the DES token
	Signature    []byte // iff Flags&ConnectFlagSignature: wfAES(secret) of an APK signature (Android/APad only)
}

// NewConnect returns the CONNECT a Wildfire client sends: level 4, flags
// username | password | clean session, no will, no signature.
func NewConnect(clientID, userID string, password []byte, keepAlive uint16) Connect {
	return Connect{ProtocolName: ProtocolName, Level: LevelMQTT311, Flags: ConnectFlagsDefault,
		KeepAlive: keepAlive, ClientID: clientID, Username: userID, Password: password}
}

// PacketType implements Packet.
func (Connect) PacketType() PacketType { return TypeConnect }

// Append implements Packet. Fields whose flag is clear are not written.
func (c Connect) Append(dst []byte) ([]byte, error) {
	s := sizer{n: 1 + 1 + 2}
	s.field(len(c.ProtocolName))
	s.field(len(c.ClientID))
	if c.Flags&ConnectFlagWill != 0 {
		s.field(len(c.WillTopic))
		s.field(len(c.WillMessage))
	}
	if c.Flags&ConnectFlagUsername != 0 {
		s.field(len(c.Username))
	}
	if c.Flags&ConnectFlagPassword != 0 {
		s.field(len(c.Password))
	}
	if c.Flags&ConnectFlagSignature != 0 {
		s.field(len(c.Signature))
	}
	if c.Level == LevelMQTT5 {
		s.fail(ErrLevel5)
	}
	dst, err := frameStart(dst, TypeConnect, 0, s)
	if err != nil {
		return dst, err
	}
	dst = appendStr(dst, c.ProtocolName)
	dst = append(dst, c.Level, c.Flags)
	dst = binary.BigEndian.AppendUint16(dst, c.KeepAlive)
	dst = appendStr(dst, c.ClientID)
	if c.Flags&ConnectFlagWill != 0 {
		dst = appendStr(dst, c.WillTopic)
		dst = appendBin(dst, c.WillMessage)
	}
	if c.Flags&ConnectFlagUsername != 0 {
		dst = appendStr(dst, c.Username)
	}
	if c.Flags&ConnectFlagPassword != 0 {
		dst = appendBin(dst, c.Password)
	}
	if c.Flags&ConnectFlagSignature != 0 {
		dst = appendBin(dst, c.Signature)
	}
	return dst, nil
}

// DecodeConnect decodes a CONNECT body. Like the server's decoder it refuses
// the reserved flag bit at levels 4 and 5 and bytes after the last field;
// a level-5 CONNECT is ErrLevel5. The protocol name and level are returned
// as sent: checking them (level 3 → ConnackUnacceptableProtocolVersion) is
// the caller's job.
func DecodeConnect(body []byte) (Connect, error) {
	r := reader{b: body}
	var c Connect
	c.ProtocolName = r.str()
	c.Level = r.u8()
	c.Flags = r.u8()
	c.KeepAlive = r.u16()
	if r.err == nil {
		if c.Level == LevelMQTT5 {
			return Connect{}, decodeErr(TypeConnect, ErrLevel5)
		}
		if c.Level == LevelMQTT311 && c.Flags&ConnectFlagReserved != 0 {
			return Connect{}, decodeErr(TypeConnect, ErrConnectFlags)
		}
	}
	c.ClientID = r.str()
	if c.Flags&ConnectFlagWill != 0 {
		c.WillTopic = r.str()
		c.WillMessage = r.bin()
	}
	if c.Flags&ConnectFlagUsername != 0 {
		c.Username = r.str()
	}
	if c.Flags&ConnectFlagPassword != 0 {
		c.Password = r.bin()
	}
	if c.Flags&ConnectFlagSignature != 0 {
		c.Signature = r.bin()
	}
	r.end()
	if r.err != nil {
		return Connect{}, decodeErr(TypeConnect, r.err)
	}
	return c, nil
}

// Connack answers CONNECT (§5.3, §14): the standard two bytes, then, on
// success, a plaintext ConnectAckPayload protobuf. The real server answered
// a fresh user with 20 11 00 00 080010001800200038c1d5deada034: every head
// present and 0, then server_time.
type Connack struct {
	SessionPresent bool
	ReturnCode     ConnectReturnCode
	Payload        []byte // ConnectAckPayload, marshalled; nil when absent
}

// NewConnack builds a CONNACK carrying ack (nil for none, as on a refusal).
func NewConnack(code ConnectReturnCode, ack *pb.ConnectAckPayload) (Connack, error) {
	c := Connack{ReturnCode: code}
	if ack != nil {
		b, err := proto.Marshal(ack)
		if err != nil {
			return Connack{}, fmt.Errorf("wildfire: CONNACK payload: %w", err)
		}
		if len(b) > 0 {
			c.Payload = b
		}
	}
	return c, nil
}

// Ack unmarshals the payload; a CONNACK without one gives an empty message.
func (c Connack) Ack() (*pb.ConnectAckPayload, error) {
	ack := new(pb.ConnectAckPayload)
	if err := proto.Unmarshal(c.Payload, ack); err != nil {
		return nil, fmt.Errorf("wildfire: CONNACK payload: %w", err)
	}
	return ack, nil
}

// PacketType implements Packet.
func (Connack) PacketType() PacketType { return TypeConnack }

// Append implements Packet.
func (c Connack) Append(dst []byte) ([]byte, error) {
	dst, err := frameStart(dst, TypeConnack, 0, sizer{n: 2 + len(c.Payload)})
	if err != nil {
		return dst, err
	}
	var sp byte
	if c.SessionPresent {
		sp = 1
	}
	dst = append(dst, sp, byte(c.ReturnCode))
	return append(dst, c.Payload...), nil
}

// DecodeConnack decodes a CONNACK body: the rest after the two bytes is the
// payload, whatever the return code.
func DecodeConnack(body []byte) (Connack, error) {
	r := reader{b: body}
	var c Connack
	sp := r.u8()
	c.ReturnCode = ConnectReturnCode(r.u8())
	c.Payload = r.rest()
	if r.err == nil && sp > 1 {
		r.err = ErrConnackFlags
	}
	if r.err != nil {
		return Connack{}, decodeErr(TypeConnack, r.err)
	}
	c.SessionPresent = sp == 1
	return c, nil
}

// Pingreq is the client's keep-alive, c0 00.
type Pingreq struct{}

// PacketType implements Packet.
func (Pingreq) PacketType() PacketType { return TypePingreq }

// Append implements Packet.
func (Pingreq) Append(dst []byte) ([]byte, error) { return AppendPingreq(dst), nil }

// Pingresp answers Pingreq, d0 00.
type Pingresp struct{}

// PacketType implements Packet.
func (Pingresp) PacketType() PacketType { return TypePingresp }

// Append implements Packet.
func (Pingresp) Append(dst []byte) ([]byte, error) { return AppendPingresp(dst), nil }

// Disconnect is e0 00. The server takes it as "connection lost": the session
// survives (§5.7).
type Disconnect struct{}

// PacketType implements Packet.
func (Disconnect) PacketType() PacketType { return TypeDisconnect }

// Append implements Packet.
func (Disconnect) Append(dst []byte) ([]byte, error) { return AppendDisconnect(dst), nil }
