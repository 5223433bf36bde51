package wildfire

import (
	"strconv"

	"github.com/imbench/imbench/wire/internal/varlen"
)

// Ports of a release wildfirechat.conf (wildfire.md §1).
const (
	DefaultMQTTPort  = 1883  // `port`: MQTT over TCP, the only long-link transport
	DefaultHTTPPort  = 80    // `http_port`: client short links (/route, /im)
	DefaultAdminPort = 18080 // `http.admin.port`: the signed server API (§4)
)

// Defaults of a release wildfirechat.conf (§1, §3.2, §4).
const (
	DefaultAdminSecret = "123456" // http.admin.secret_key
	DefaultTokenKey    = "testim" // token.key, the prefix inside every DES token
)

// Protocol levels CONNECT may carry (§5.3, MqttVersion.java).
const (
	LevelMQTT31  uint8 = 3 // "MQIsdp": refused with ConnackUnacceptableVersion
	LevelMQTT311 uint8 = 4 // recommended for a load client
	LevelMQTT5   uint8 = 5 // the server then expects MQTT 5 properties: not modelled here
	LevelWF2     uint8 = 6 // "Wildfire_2": as 4, but large PUBACK results may come gzipped (code 255)
)

// ProtocolName is CONNECT's protocol name for levels 4 to 7.
const ProtocolName = "MQTT"

// CONNECT flag bits (§5.3). A Wildfire client sends ConnectFlagsDefault:
// username, password and clean session (which the server ignores).
const (
	ConnectFlagUsername     uint8 = 0x80
	ConnectFlagPassword     uint8 = 0x40
	ConnectFlagSignature    uint8 = 0x20 // MQTT's will-retain bit, reused: a signature follows the password
	ConnectFlagWillQoS      uint8 = 0x18
	ConnectFlagWill         uint8 = 0x04 // unused by Wildfire clients; decoded for completeness
	ConnectFlagCleanSession uint8 = 0x02
	ConnectFlagReserved     uint8 = 0x01 // must be 0 at levels 4 and 5

	ConnectFlagsDefault = ConnectFlagUsername | ConnectFlagPassword | ConnectFlagCleanSession // 0xC2
)

// Limits (§5.4, §9, MqttConstant.java).
const (
	// MaxClientRemainingLength is the largest remaining length the server's
	// MQTT decoder accepts (DEFAULT_MAX_BYTES_IN_MESSAGE, 256 KiB); a front
	// end imitating it splits with SplitFrameLimit(buf, MaxClientRemainingLength).
	MaxClientRemainingLength = 256 << 10
	// MaxRemainingLength is this package's cap on any frame (SplitFrame and
	// every encoder). The server's encoder has none, but a pull answer stops
	// adding messages at 512 KiB (§5.6), so real frames stay well below.
	MaxRemainingLength = 4 << 20
	// MaxVarintBytes is the longest remaining-length encoding.
	MaxVarintBytes = varlen.MaxBytes
	// MaxSkewHours is wfAES's clock tolerance (§3.1): a plaintext whose hour
	// prefix is further than this from the reader's hour is refused.
	MaxSkewHours = 24
	// MaxIDLen is the longest user or client id the session table holds (§9).
	MaxIDLen = 64
	// MaxPacketID is the largest MQTT packet id; 0 is invalid.
	MaxPacketID = 65535
	// SendResultLen is the size of a successful MS result (§5.5).
	SendResultLen = 16
)

// ConnectReturnCode is CONNACK's second byte (§5.3, MqttConnectReturnCode).
type ConnectReturnCode uint8

// CONNACK return codes: MQTT 3.1.1's 0–5 and Wildfire's 6–8.
const (
	ConnackAccepted                    ConnectReturnCode = 0
	ConnackUnacceptableProtocolVersion ConnectReturnCode = 1 // level 3
	ConnackIdentifierRejected          ConnectReturnCode = 2 // also: user blocked
	ConnackServerUnavailable           ConnectReturnCode = 3
	ConnackBadUsernameOrPassword       ConnectReturnCode = 4 // password undecryptable or token for another user
	ConnackNotAuthorized               ConnectReturnCode = 5
	ConnackUnexpectedNode              ConnectReturnCode = 6
	ConnackSessionNotExist             ConnectReturnCode = 7 // unknown clientId, username mismatch, kicked session
	ConnackSignatureFailure            ConnectReturnCode = 8
)

var connackNames = [...]string{"Accepted", "UnacceptableProtocolVersion", "IdentifierRejected",
	"ServerUnavailable", "BadUsernameOrPassword", "NotAuthorized", "UnexpectedNode",
	"SessionNotExist", "SignatureFailure"}

func (c ConnectReturnCode) String() string {
	if int(c) < len(connackNames) {
		return connackNames[c]
	}
	return "ConnectReturnCode(" + strconv.Itoa(int(c)) + ")"
}

// ErrorCode is the result code of every IM request: PUBACK's code byte, the
// first byte of an HTTP short-link answer and the admin API's "code"
// (§8, common/ErrorCode.java). It fits a byte.
type ErrorCode uint8

// Error codes (§8).
const (
	CodeSuccess               ErrorCode = 0
	CodeSecretKeyMismatch     ErrorCode = 1
	CodeInvalidData           ErrorCode = 2 // also: a payload that does not decrypt (§5.4)
	CodeNodeNotExist          ErrorCode = 3
	CodeServerError           ErrorCode = 4 // also: duplicate user name, chatroom send by a non-member (§14)
	CodeNotModified           ErrorCode = 5
	CodeTokenError            ErrorCode = 6
	CodeKickedOff             ErrorCode = 7
	CodeUserForbidden         ErrorCode = 8
	CodeNotInGroup            ErrorCode = 9
	CodeInvalidMessage        ErrorCode = 10
	CodeGroupAlreadyExist     ErrorCode = 11
	CodeAlreadyInGroup        ErrorCode = 12
	CodeFriendAlreadyRequest  ErrorCode = 16
	CodeFriendRequestBlocked  ErrorCode = 18
	CodeFriendRequestExpired  ErrorCode = 19
	CodeNotInChatroom         ErrorCode = 20
	CodeNotInChannel          ErrorCode = 21
	CodeNotLicensed           ErrorCode = 22
	CodeAlreadyFriends        ErrorCode = 23
	CodeRecallTimeExpired     ErrorCode = 24
	CodeRobotNoToken          ErrorCode = 27
	CodeTimeInconsistent      ErrorCode = 30
	CodeFunctionDisabled      ErrorCode = 220
	CodeOtherClientInChatroom ErrorCode = 225
	CodeChannelNotExist       ErrorCode = 236
	CodeChannelNoSecret       ErrorCode = 237
	CodeUserNotPrepared       ErrorCode = 238
	CodeAPINotSigned          ErrorCode = 239
	CodeGroupExceedMaxMember  ErrorCode = 240
	CodeGroupMuted            ErrorCode = 241
	CodeSensitiveMatched      ErrorCode = 242
	CodeSignExpired           ErrorCode = 243
	CodeAuthFailure           ErrorCode = 244
	CodeUserBlocked           ErrorCode = 245
	CodeInBlacklist           ErrorCode = 246
	CodeForbiddenSendMsg      ErrorCode = 247
	CodeNoRight               ErrorCode = 248
	CodeTimeout               ErrorCode = 249
	CodeOverFrequency         ErrorCode = 250 // the per-client and admin rate limits (§9, §14)
	CodeInvalidParameter      ErrorCode = 251 // also: a client sending content type 80, 81 or 100–199
	CodeAsyncHandling         ErrorCode = 252 // internal, never on the wire
	CodeNotExist              ErrorCode = 253
	CodeNotImplement          ErrorCode = 254 // unknown topic
	CodeSuccessGzipped        ErrorCode = 255 // success, result gzip-compressed before encryption (levels >= 5)
)

var codeNames = map[ErrorCode]string{
	CodeSuccess: "Success", CodeSecretKeyMismatch: "SecretKeyMismatch", CodeInvalidData: "InvalidData",
	CodeNodeNotExist: "NodeNotExist", CodeServerError: "ServerError", CodeNotModified: "NotModified",
	CodeTokenError: "TokenError", CodeKickedOff: "KickedOff", CodeUserForbidden: "UserForbidden",
	CodeNotInGroup: "NotInGroup", CodeInvalidMessage: "InvalidMessage", CodeGroupAlreadyExist: "GroupAlreadyExist",
	CodeAlreadyInGroup: "AlreadyInGroup", CodeFriendAlreadyRequest: "FriendAlreadyRequest",
	CodeFriendRequestBlocked: "FriendRequestBlocked", CodeFriendRequestExpired: "FriendRequestExpired",
	CodeNotInChatroom: "NotInChatroom", CodeNotInChannel: "NotInChannel", CodeNotLicensed: "NotLicensed",
	CodeAlreadyFriends: "AlreadyFriends", CodeRecallTimeExpired: "RecallTimeExpired",
	CodeRobotNoToken: "RobotNoToken", CodeTimeInconsistent: "TimeInconsistent",
	CodeFunctionDisabled: "FunctionDisabled", CodeOtherClientInChatroom: "OtherClientInChatroom",
	CodeChannelNotExist: "ChannelNotExist", CodeChannelNoSecret: "ChannelNoSecret",
	CodeUserNotPrepared: "UserNotPrepared", CodeAPINotSigned: "APINotSigned",
	CodeGroupExceedMaxMember: "GroupExceedMaxMember", CodeGroupMuted: "GroupMuted",
	CodeSensitiveMatched: "SensitiveMatched", CodeSignExpired: "SignExpired", CodeAuthFailure: "AuthFailure",
	CodeUserBlocked: "UserBlocked", CodeInBlacklist: "InBlacklist", CodeForbiddenSendMsg: "ForbiddenSendMsg",
	CodeNoRight: "NoRight", CodeTimeout: "Timeout", CodeOverFrequency: "OverFrequency",
	CodeInvalidParameter: "InvalidParameter", CodeAsyncHandling: "AsyncHandling", CodeNotExist: "NotExist",
	CodeNotImplement: "NotImplement", CodeSuccessGzipped: "SuccessGzipped",
}

// String returns the code's name without the "Code" prefix, e.g.
// "OverFrequency", or "ErrorCode(n)" for a code §8 does not list.
func (c ErrorCode) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return "ErrorCode(" + strconv.Itoa(int(c)) + ")"
}

// OK reports a success: CodeSuccess, or CodeSuccessGzipped.
func (c ErrorCode) OK() bool { return c == CodeSuccess || c == CodeSuccessGzipped }

// Conversation types: Conversation.type (§8 ProtoConstants).
const (
	ConvPrivate    int32 = 0
	ConvGroup      int32 = 1
	ConvChatroom   int32 = 2
	ConvChannel    int32 = 3
	ConvThings     int32 = 4
	ConvSecretChat int32 = 5
)

// Platforms: get_token's and RouteRequest's platform (§8).
const (
	PlatformUnset      int32 = 0
	PlatformIOS        int32 = 1
	PlatformAndroid    int32 = 2
	PlatformWindows    int32 = 3
	PlatformOSX        int32 = 4
	PlatformWeb        int32 = 5
	PlatformWXMini     int32 = 6
	PlatformLinux      int32 = 7 // a good choice for a load client (§5.1)
	PlatformIPad       int32 = 8
	PlatformAPad       int32 = 9
	PlatformHarmony    int32 = 10
	PlatformHarmonyPad int32 = 11
	PlatformHarmonyPC  int32 = 12
)

// Pull types: PullMessageRequest.type and NotifyMessage.type (§5.6, §8).
const (
	PullNormal   int32 = 0
	PullChatroom int32 = 1
	PullGroup    int32 = 2
)

// Special PullMessageRequest ids (§5.6).
const (
	PullFromStart int64 = 0 // with message.roaming 0: only the last compensate_time_limit (5 min)
	PullLiteMode  int64 = 1 // returns only the head
)

// Persist flags: MessageContent.persist_flag (§5.5).
const (
	PersistNone        int32 = 0
	PersistStore       int32 = 1
	PersistStoreCount  int32 = 3 // stored and counted as unread
	PersistTransparent int32 = 4 // not stored: pushed as MS to online sessions, no pull
)

// Content types: MessageContent.type (§8). A client may not send
// ContentRecall, 81 nor 100–199 (CodeInvalidParameter).
const (
	ContentText              int32 = 1
	ContentVoice             int32 = 2
	ContentImage             int32 = 3
	ContentLocation          int32 = 4
	ContentFile              int32 = 5
	ContentVideo             int32 = 6
	ContentSticker           int32 = 7
	ContentLink              int32 = 8
	ContentRecall            int32 = 80
	ContentTip               int32 = 90
	ContentTyping            int32 = 91
	ContentGroupNotifyFirst  int32 = 104 // 104–123: group notifications
	ContentGroupNotifyLast   int32 = 123
	ContentVoIPFirst         int32 = 400 // 400–411: VoIP signalling
	ContentVoIPLast          int32 = 411
	ContentClientForbidFirst int32 = 100 // 100–199 may not come from a client
	ContentClientForbidLast  int32 = 199
)

// Group types: GroupInfo.type (§4 group/create).
const (
	GroupNormal       int32 = 0
	GroupFree         int32 = 1
	GroupRestricted   int32 = 2
	GroupOrganization int32 = 3
)

// Group member types: GroupMember.type (§8).
const (
	MemberNormal  int32 = 0
	MemberManager int32 = 1
	MemberOwner   int32 = 2
	MemberSilent  int32 = 3
	MemberRemoved int32 = 4
	MemberAllowed int32 = 5
)

// User types: /admin/user/create's type (§4).
const (
	UserNormal     = 0
	UserRobot      = 1 // use the robot API instead
	UserAdmin      = 2
	UserSuperAdmin = 3
)
