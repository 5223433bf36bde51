package wildfire

// IM topics: the PUBLISH topic of every request and push (wildfire.md §7,
// win/liyufan/im/IMTopic.java). Requests go client→server as QoS 1 with an
// encrypted body and are answered by a PUBACK with a code; pushes go
// server→client as QoS 0 with a plaintext body (§2). Where a comment names
// body types (pb), they were read off the topic's handler class.
const (
	// Messages.
	TopicSendMessage        = "MS"  // Message → 16 bytes: messageUid, timestamp; also a push of transparent messages (s→c)
	TopicPullMessage        = "MP"  // PullMessageRequest → PullMessageResult; exempt from the rate limit
	TopicNotifyMessage      = "MN"  // s→c push: NotifyMessage (plaintext)
	TopicRecallMessage      = "MR"  // INT64Buf (messageUid)
	TopicNotifyRecall       = "RMN" // s→c push: NotifyRecallMessage
	TopicMultiCastMessage   = "MMC"
	TopicRecallMultiCast    = "MRMC"
	TopicBroadcastMessage   = "MBC"
	TopicLoadRemoteMessages = "LRM"  // LoadRemoteMessages → PullMessageResult
	TopicNotifyOffline      = "ROFL" // s→c push, payload "1": this session was kicked (§14)

	// Users and settings.
	TopicGetUserSetting      = "UG" // exempt from the rate limit
	TopicPutUserSetting      = "UP"
	TopicNotifyUserSetting   = "UN"   // s→c push
	TopicGetUserInfo         = "UPUI" // PullUserRequest → PullUserResult
	TopicModifyMyInfo        = "MMI"
	TopicNotifyUserInfo      = "UIN" // s→c push
	TopicSearchUser          = "US"
	TopicUploadDeviceToken   = "UDT"
	TopicGetQiniuUploadToken = "GQNUT"

	// Connection and account.
	TopicRoute               = "ROUTE"       // RouteRequest → RouteResponse (HTTP /route)
	TopicGetToken            = "GETTOKEN"    // GetTokenRequest: what /admin/user/get_token runs
	TopicDestroyUser         = "DESTROYUSER" // the account deletes itself
	TopicKickoffPCClient     = "KPCC"
	TopicClearSession        = "CST"
	TopicGetApplicationToken = "ATR"
	TopicApplicationConfig   = "ACR"

	// Groups.
	TopicCreateGroup        = "GC"  // CreateGroupRequest → the group id, raw bytes
	TopicAddGroupMember     = "GAM" // AddGroupMemberRequest
	TopicKickoffGroupMember = "GKM" // RemoveGroupMemberRequest
	TopicQuitGroup          = "GQ"  // QuitGroupRequest
	TopicDismissGroup       = "GD"  // DismissGroupRequest
	TopicModifyGroupInfo    = "GMI"
	TopicModifyGroupAlias   = "GMA"
	TopicModifyMemberAlias  = "GMMA"
	TopicModifyMemberExtra  = "GMME"
	TopicGetGroupInfo       = "GPGI" // PullUserRequest (group ids) → PullGroupInfoResult
	TopicGetGroupMember     = "GPGM" // PullGroupMemberRequest → PullGroupMemberResult
	TopicTransferGroup      = "GTG"
	TopicSetGroupManager    = "GSM"
	TopicGetMyGroups        = "GMGS"
	TopicGetCommonGroups    = "GCGS"

	// Friends.
	TopicAddFriendRequest    = "FAR"
	TopicHandleFriendRequest = "FHR"
	TopicFriendRequestPull   = "FRP"
	TopicNotifyFriendRequest = "FRN" // s→c push
	TopicFriendRequestUnread = "FRUS"
	TopicDeleteFriend        = "FDL"
	TopicFriendPull          = "FP"
	TopicNotifyFriend        = "FN" // s→c push
	TopicBlacklistUser       = "BLU"
	TopicSetFriendAlias      = "FALS"

	// Chatrooms.
	TopicJoinChatroom       = "CRJ"  // IDBuf (chatroom id); then MN type 1 and MP type 1 (§14)
	TopicQuitChatroom       = "CRQ"  // IDBuf
	TopicGetChatroomInfo    = "CRI"  // GetChatroomInfoRequest → ChatroomInfo
	TopicGetChatroomMembers = "CRMI" // GetChatroomMemberInfoRequest → ChatroomMemberInfo

	// Channels.
	TopicCreateChannel       = "CHC"
	TopicModifyChannelInfo   = "CHMI"
	TopicTransferChannel     = "CHT"
	TopicDestroyChannel      = "CHD"
	TopicSearchChannel       = "CHS"
	TopicListenChannel       = "CHL"
	TopicPullChannel         = "CHP"
	TopicChannelListenedList = "CHLL"
)

// RateLimitExempt reports the topics the per-client request limit skips
// (§9: MP and UG; every other topic, MS included, shares 100 per 5 s per
// client and topic at release defaults).
func RateLimitExempt(topic string) bool {
	return topic == TopicPullMessage || topic == TopicGetUserSetting
}
