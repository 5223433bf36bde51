package openim

// Request identifiers (msggateway constant.go, openim.md §1.7).
const (
	ReqGetNewestSeq   int32 = 1001
	ReqPullMsgByRange int32 = 1002
	ReqSendMsg        int32 = 1003
	PushMsg           int32 = 2001
	KickOnlineMsg     int32 = 2002
	LogoutMsg         int32 = 2003
)

// Error codes (openim.md §1.8) imbench sends or reacts to.
const (
	CodeServerInternal = 500
	CodeArgs           = 1001
	CodeNoPermission   = 1002
	CodeUserNotFound   = 1101
	CodeRegistered     = 1102
	CodeGroupNotFound  = 1201
	CodeGroupExisted   = 1202
	CodeNotInGroup     = 1203
	CodeCannotAddSelf  = 1301
	CodeRelationship   = 1304
	CodeTokenExpired   = 1501
	CodeTokenInvalid   = 1502
	CodeTokenKicked    = 1506
	CodeTokenNotExist  = 1507
	CodeConnOverMax    = 1601
	CodeConnArgs       = 1602
)

// IsTokenError reports a code of the 1501–1507 family: the server no longer
// accepts the token, and a fresh one is the SDK's answer.
func IsTokenError(code int) bool { return code >= CodeTokenExpired && code <= CodeTokenNotExist }

// Session types (openim.md §2.5): v3 groups are all "super groups" (3).
const (
	SessionSingle int32 = 1
	SessionGroup  int32 = 3
)

// Platform ids (openim.md §2.6) with a meaning of their own here.
const (
	PlatformAndroid = 2 // what the seed's test programs log in as
	PlatformWeb     = 5 // the only platform the server pings
	PlatformAdmin   = 10
)

// ContentTypeText is a text message; MsgFromUser a message a user sent.
const (
	ContentTypeText int32 = 101
	MsgFromUser     int32 = 100
)

// Limits of msggateway (openim.md §1.6).
const (
	ReadDeadlineSeconds = 30    // silence after which the server closes a connection
	MaxFrameBytes       = 51200 // the server's read limit per frame
	MaxConnsDefault     = 100000
)

// ValidPlatform reports a user platform id: 1–9 and 11 (10 is the admin).
func ValidPlatform(p int) bool { return p >= 1 && p <= 11 && p != PlatformAdmin }
