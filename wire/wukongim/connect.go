package wukongim

import "encoding/binary"

// Connect is the client's first frame (§3 CONNECT). Its layout does not
// depend on the protocol version; Version is the one the client asks for.
type Connect struct {
	Flags           uint8
	Version         uint8
	DeviceFlag      uint8  // DeviceApp, DeviceWeb, DevicePC, DeviceSystem
	DeviceID        string // unique per connection: a reused one gets kicked (§5)
	UID             string // non-empty, no '@', '#' or '&'
	Token           string // checked only with tokenAuthOn
	ClientTimestamp int64  // ms since the epoch; only feeds CONNACK's timeDiff
	ClientKey       string // base64 (std, padded) of the 32-byte X25519 public key
}

// PacketType implements Packet.
func (Connect) PacketType() PacketType { return TypeConnect }

// Append implements Packet; the version argument is unused.
func (c Connect) Append(dst []byte, _ uint8) ([]byte, error) {
	s := sizer{n: 1 + 1 + 8}
	s.str(c.DeviceID)
	s.str(c.UID)
	s.str(c.Token)
	s.str(c.ClientKey)
	dst, err := frameStart(dst, TypeConnect, c.Flags, s)
	if err != nil {
		return dst, err
	}
	dst = append(dst, c.Version, c.DeviceFlag)
	dst = appendStr(dst, c.DeviceID)
	dst = appendStr(dst, c.UID)
	dst = appendStr(dst, c.Token)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.ClientTimestamp))
	return appendStr(dst, c.ClientKey), nil
}

// DecodeConnect decodes a CONNECT body; the version argument is unused.
func DecodeConnect(flags uint8, body []byte, _ uint8) (Connect, error) {
	r := reader{b: body}
	c := Connect{Flags: flags}
	c.Version = r.u8()
	c.DeviceFlag = r.u8()
	c.DeviceID = r.str()
	c.UID = r.str()
	c.Token = r.str()
	c.ClientTimestamp = int64(r.u64())
	c.ClientKey = r.str()
	if r.err != nil {
		return Connect{}, decodeErr(TypeConnect, r.err)
	}
	return c, nil
}

// Negotiate is what a v2.2.1+ server does with CONNECT's version (§2): the
// version for CONNACK and every later frame both ways is
// min(client, LatestVersion), and CONNACK carries FlagHasServerVersion (and
// ServerVersion = version) iff the client asked for more than 3.
func Negotiate(clientVersion uint8) (version, connackFlags uint8) {
	version = min(clientVersion, LatestVersion)
	if clientVersion > 3 {
		connackFlags = FlagHasServerVersion
	}
	return version, connackFlags
}

// Connack answers CONNECT (§3 CONNACK). A v2.2.5 server sends none on an
// auth failure: the socket just closes (§5).
type Connack struct {
	Flags         uint8 // FlagHasServerVersion or 0
	ServerVersion uint8 // on the wire iff Flags&FlagHasServerVersion
	TimeDiff      int64 // server_now_ms - CONNECT's clientTimestamp
	ReasonCode    ReasonCode
	ServerKey     string // base64 X25519 public key; "" with encryption off
	Salt          string // 16 [0-9a-zA-Z], the AES IV; "" with encryption off
	NodeID        uint64 // on the wire iff the negotiated version >= 4
}

// PacketType implements Packet.
func (Connack) PacketType() PacketType { return TypeConnack }

// Version returns the negotiated version: the smaller of ServerVersion, when
// the flag says it is there, and v, the version the client asked for (or,
// for the server, the negotiated one). Frames after CONNACK use it.
func (c Connack) Version(v uint8) uint8 {
	if c.Flags&FlagHasServerVersion != 0 {
		return min(v, c.ServerVersion)
	}
	return v
}

// Append implements Packet. version is the negotiated version; NodeID is
// written iff c.Version(version) >= 4.
func (c Connack) Append(dst []byte, version uint8) ([]byte, error) {
	hasSV := c.Flags&FlagHasServerVersion != 0
	s := sizer{n: 8 + 1}
	if hasSV {
		s.n++
	}
	s.str(c.ServerKey)
	s.str(c.Salt)
	nodeID := c.Version(version) >= 4
	if nodeID {
		s.n += 8
	}
	dst, err := frameStart(dst, TypeConnack, c.Flags, s)
	if err != nil {
		return dst, err
	}
	if hasSV {
		dst = append(dst, c.ServerVersion)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.TimeDiff))
	dst = append(dst, byte(c.ReasonCode))
	dst = appendStr(dst, c.ServerKey)
	dst = appendStr(dst, c.Salt)
	if nodeID {
		dst = binary.BigEndian.AppendUint64(dst, c.NodeID)
	}
	return dst, nil
}

// DecodeConnack decodes a CONNACK body. version is the one the client sent
// in CONNECT; the flag's ServerVersion, when present and lower, decides
// whether NodeID follows (see Connack.Version).
func DecodeConnack(flags uint8, body []byte, version uint8) (Connack, error) {
	r := reader{b: body}
	c := Connack{Flags: flags}
	if flags&FlagHasServerVersion != 0 {
		c.ServerVersion = r.u8()
	}
	c.TimeDiff = int64(r.u64())
	c.ReasonCode = ReasonCode(r.u8())
	c.ServerKey = r.str()
	c.Salt = r.str()
	if c.Version(version) >= 4 {
		c.NodeID = r.u64()
	}
	if r.err != nil {
		return Connack{}, decodeErr(TypeConnack, r.err)
	}
	return c, nil
}

// Disconnect closes a session; the server kicks with ReasonConnectKick and
// KickReason, then closes the socket about 2 s later (§3, §5).
type Disconnect struct {
	Flags      uint8
	ReasonCode ReasonCode
	Reason     string
}

// PacketType implements Packet.
func (Disconnect) PacketType() PacketType { return TypeDisconnect }

// Append implements Packet.
func (d Disconnect) Append(dst []byte, _ uint8) ([]byte, error) {
	s := sizer{n: 1}
	s.str(d.Reason)
	dst, err := frameStart(dst, TypeDisconnect, d.Flags, s)
	if err != nil {
		return dst, err
	}
	dst = append(dst, byte(d.ReasonCode))
	return appendStr(dst, d.Reason), nil
}

// DecodeDisconnect decodes a DISCONNECT body.
func DecodeDisconnect(flags uint8, body []byte, _ uint8) (Disconnect, error) {
	r := reader{b: body}
	d := Disconnect{Flags: flags}
	d.ReasonCode = ReasonCode(r.u8())
	d.Reason = r.str()
	if r.err != nil {
		return Disconnect{}, decodeErr(TypeDisconnect, r.err)
	}
	return d, nil
}

// Ping is the client's keep-alive, the single byte 0x70; send one every
// 30–60 s after CONNACK (§5).
type Ping struct{}

// PacketType implements Packet.
func (Ping) PacketType() PacketType { return TypePing }

// Append implements Packet.
func (Ping) Append(dst []byte, _ uint8) ([]byte, error) { return AppendPing(dst), nil }

// Pong is the server's answer to Ping, the single byte 0x80.
type Pong struct{}

// PacketType implements Packet.
func (Pong) PacketType() PacketType { return TypePong }

// Append implements Packet.
func (Pong) Append(dst []byte, _ uint8) ([]byte, error) { return AppendPong(dst), nil }
