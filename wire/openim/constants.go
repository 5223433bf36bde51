package openim

// Request identifiers (open-im-server internal/msggateway/constant.go; the
// SDK's names in openim-sdk-core pkg/constant/constant.go differ for 1002
// and 1005, see openim.md §1.7). The gateway answers 1001–1007 and
// 2003–2005 (client.go handleMessage); 2001 and 2002 are the server's own
// frames and 3001 is defined but never used.
const (
	ReqGetNewestSeq      int32 = 1001 // sdkws.GetMaxSeqReq → GetMaxSeqResp
	ReqPullMsgByRange    int32 = 1002 // sdkws.PullMessageBySeqsReq → PullMessageBySeqsResp
	ReqSendMsg           int32 = 1003 // sdkws.MsgData → msg.SendMsgResp
	ReqSendSignalMsg     int32 = 1004 // the server calls SendMsg with no MsgData: always 1001
	ReqPullMsgBySeqList  int32 = 1005 // msg.GetSeqMessageReq → GetSeqMessageResp
	ReqGetConvMaxReadSeq int32 = 1006 // msg.GetConversationsHasReadAndMaxSeqReq → …Resp
	ReqPullConvLastMsg   int32 = 1007 // msg.GetLastMessageReq → GetLastMessageResp
	PushMsg              int32 = 2001
	KickOnlineMsg        int32 = 2002
	LogoutMsg            int32 = 2003 // push.DelUserPushTokenReq → DelUserPushTokenResp, then close
	SetBackgroundStatus  int32 = 2004 // sdkws.SetAppBackgroundStatusReq → no data
	SubUserOnlineStatus  int32 = 2005 // sdkws.SubUserOnlineStatus → SubUserOnlineStatusTips
	DataError            int32 = 3001
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
	CodeRecordNotFound = 1004
	CodeTokenExpired   = 1501
	CodeTokenInvalid   = 1502
	CodeTokenMalformed = 1503 // not a token the server could have made (tools tokenverify)
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
	PlatformIOS     = 1 // a backgrounded iOS connection gets no online push
	PlatformAndroid = 2 // what the seed's test programs log in as
	PlatformWeb     = 5 // the only platform the server pings
	PlatformAdmin   = 10
)

// ContentTypeText is a text message; MsgFromUser a message a user sent,
// MsgFromSystem one the server made (notifications, REST /msg/send_msg).
const (
	ContentTypeText int32 = 101
	MsgFromUser     int32 = 100
	MsgFromSystem   int32 = 200
)

// Notification content types (openimsdk/protocol constant/constant.go) of
// what the target sends: a friend import is announced as an approved
// application (open-im-server internal/rpc/relation ImportFriends).
const (
	ContentFriendApplicationApproved int32 = 1201
	ContentGroupCreated              int32 = 1501
	ContentMemberInvited             int32 = 1509
)

// Group member role levels (protocol constant/constant.go).
const (
	RoleOwner    int32 = 100
	RoleAdmin    int32 = 60
	RoleOrdinary int32 = 20
)

// Limits of msggateway (openim.md §1.6).
const (
	ReadDeadlineSeconds = 30    // silence after which the server closes a connection
	SDKPingSeconds      = 24    // openim-sdk-core's ping period: pongWait × 8/10
	MaxFrameBytes       = 51200 // the server's read limit per frame
	MaxConnsDefault     = 100000
)

// ValidPlatform reports a user platform id: 1–9 and 11 (10 is the admin).
func ValidPlatform(p int) bool { return p >= 1 && p <= 11 && p != PlatformAdmin }
