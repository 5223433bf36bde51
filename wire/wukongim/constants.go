package wukongim

import "strconv"

// PacketType is the high nibble of a frame's first byte (wukongim.md §2).
type PacketType uint8

// Packet types. 0 is reserved; anything above TypeEvent is unknown.
const (
	TypeConnect    PacketType = 1  // c→s
	TypeConnack    PacketType = 2  // s→c
	TypeSend       PacketType = 3  // c→s
	TypeSendack    PacketType = 4  // s→c
	TypeRecv       PacketType = 5  // s→c
	TypeRecvack    PacketType = 6  // c→s
	TypePing       PacketType = 7  // c→s, one byte 0x70
	TypePong       PacketType = 8  // s→c, one byte 0x80
	TypeDisconnect PacketType = 9  // both; the server kicks with it
	TypeSub        PacketType = 10 // c→s (ignored by v2.2.x servers)
	TypeSuback     PacketType = 11 // s→c
	TypeEvent      PacketType = 12 // s→c, GoProto v1.2.3
)

// PingByte and PongByte are the whole PING and PONG frames.
const (
	PingByte byte = byte(TypePing) << 4
	PongByte byte = byte(TypePong) << 4
)

var typeNames = [...]string{"", "CONNECT", "CONNACK", "SEND", "SENDACK", "RECV", "RECVACK",
	"PING", "PONG", "DISCONNECT", "SUB", "SUBACK", "EVENT"}

// Valid reports a defined packet type (1–12).
func (t PacketType) Valid() bool { return t >= TypeConnect && t <= TypeEvent }

func (t PacketType) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return "UNKNOWN(" + strconv.Itoa(int(t)) + ")"
}

// Header flag bits: the low nibble of the first byte (§2). CONNACK gives
// bit 0 its own meaning, FlagHasServerVersion.
const (
	FlagNoPersist        uint8 = 0x01
	FlagRedDot           uint8 = 0x02
	FlagSyncOnce         uint8 = 0x04
	FlagDUP              uint8 = 0x08
	FlagHasServerVersion uint8 = 0x01 // CONNACK only
)

// Setting bits of SEND, RECV and SUB (§2 "Setting byte"). A load test uses 0.
const (
	SettingReceipt   uint8 = 0x80
	SettingSignal    uint8 = 0x20
	SettingNoEncrypt uint8 = 0x10 // ignored by v2.1.5–v2.2.5 servers (§4.7): do not set
	SettingTopic     uint8 = 0x08 // adds a topic string to SEND and RECV
	SettingStream    uint8 = 0x02 // adds stream fields when 2 <= version < 5
)

// Limits (§2).
const (
	// LatestVersion is GoProto v1.2.2+'s protocol version; v2.2.1+ servers
	// negotiate min(client, 5), older v2 servers cap at 4.
	LatestVersion uint8 = 5
	// MaxRemainingLength is the largest body the server accepts (1 MiB).
	MaxRemainingLength = 1 << 20
	// MaxStringLen is the longest string field: the length is read as int16.
	MaxStringLen = 32767
	// MaxPayloadLen is the client library's limit on a SEND payload
	// (PayloadMaxSize); the server only enforces MaxRemainingLength.
	MaxPayloadLen = 32767
	// SaltLen is the length of CONNACK's salt, the AES IV.
	SaltLen = 16
)

// Channel types (§6).
const (
	ChannelPerson          uint8 = 1
	ChannelGroup           uint8 = 2
	ChannelCustomerService uint8 = 3 // deprecated, see ChannelVisitors
	ChannelCommunity       uint8 = 4
	ChannelCommunityTopic  uint8 = 5
	ChannelInfo            uint8 = 6
	ChannelData            uint8 = 7
	ChannelTemp            uint8 = 8
	ChannelLive            uint8 = 9 // "live": no conversations kept, see api.go
	ChannelVisitors        uint8 = 10
	ChannelAgent           uint8 = 11
	ChannelAgentGroup      uint8 = 12
)

// Device flags (CONNECT deviceFlag, /user/token device_flag) and levels (§6).
const (
	DeviceApp    uint8 = 0
	DeviceWeb    uint8 = 1
	DevicePC     uint8 = 2
	DeviceSystem uint8 = 99

	DeviceLevelSlave  uint8 = 0
	DeviceLevelMaster uint8 = 1
)

// SUB/SUBACK actions.
const (
	ActionSubscribe   uint8 = 0
	ActionUnsubscribe uint8 = 1
)

// Stream flags of RECV's stream fields.
const (
	StreamStart uint8 = 0
	StreamIng   uint8 = 1
	StreamEnd   uint8 = 2
)

// ReasonCode is CONNACK's, SENDACK's, SUBACK's and DISCONNECT's result (§6).
type ReasonCode uint8

// Reason codes, in GoProto's iota order.
const (
	ReasonUnknown                ReasonCode = 0
	ReasonSuccess                ReasonCode = 1
	ReasonAuthFail               ReasonCode = 2
	ReasonSubscriberNotExist     ReasonCode = 3
	ReasonInBlacklist            ReasonCode = 4
	ReasonChannelNotExist        ReasonCode = 5
	ReasonUserNotOnNode          ReasonCode = 6
	ReasonSenderOffline          ReasonCode = 7
	ReasonMsgKeyError            ReasonCode = 8
	ReasonPayloadDecodeError     ReasonCode = 9 // bad msgKey or undecryptable payload
	ReasonForwardSendPacketError ReasonCode = 10
	ReasonNotAllowSend           ReasonCode = 11
	ReasonConnectKick            ReasonCode = 12 // DISCONNECT: logged in elsewhere
	ReasonNotInWhitelist         ReasonCode = 13
	ReasonQueryTokenError        ReasonCode = 14
	ReasonSystemError            ReasonCode = 15
	ReasonChannelIDError         ReasonCode = 16
	ReasonNodeMatchError         ReasonCode = 17
	ReasonNodeNotMatch           ReasonCode = 18
	ReasonBan                    ReasonCode = 19
	ReasonNotSupportHeader       ReasonCode = 20
	ReasonClientKeyIsEmpty       ReasonCode = 21
	ReasonRateLimit              ReasonCode = 22
	ReasonNotSupportChannelType  ReasonCode = 23
	ReasonDisband                ReasonCode = 24
	ReasonSendBan                ReasonCode = 25
)

var reasonNames = [...]string{"Unknown", "Success", "AuthFail", "SubscriberNotExist", "InBlacklist",
	"ChannelNotExist", "UserNotOnNode", "SenderOffline", "MsgKeyError", "PayloadDecodeError",
	"ForwardSendPacketError", "NotAllowSend", "ConnectKick", "NotInWhitelist", "QueryTokenError",
	"SystemError", "ChannelIDError", "NodeMatchError", "NodeNotMatch", "Ban", "NotSupportHeader",
	"ClientKeyIsEmpty", "RateLimit", "NotSupportChannelType", "Disband", "SendBan"}

// String returns the code's name without the "Reason" prefix, e.g.
// "AuthFail", or "Reason(n)" for a code GoProto does not define.
func (r ReasonCode) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// KickReason is the text of the DISCONNECT(ReasonConnectKick) a v2.2.5
// server sends an older connection when a master device logs in again
// (§3 DISCONNECT, §13 kicks). /user/token's own kick uses a Chinese text.
const KickReason = "login in other device"

// LegalID is the rule the real server applies to a uid (/user/token,
// CONNECT) and a channel id (/channel, /channel/subscriber_add, …):
// options.IsSpecialChar refuses '@', '#' and '&', which it keeps for its
// person channel ids ("a@b"). /user/token answers 400
// {"msg":"uid不能包含特殊字符！"}, a channel route "频道ID不能包含特殊字符！",
// and a CONNECT gets no CONNACK: the connection is closed.
func LegalID(id string) bool {
	for i := 0; i < len(id); i++ {
		switch id[i] {
		case '@', '#', '&':
			return false
		}
	}
	return true
}
