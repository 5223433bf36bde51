package openim

// The JSON shapes of the openim-api routes an OpenIM SDK calls at login and
// sync, as openim-api encodes them: encoding/json over the protocol's
// generated structs, so a field's key is its proto name (openimsdk/protocol
// sdkws/sdkws.proto, user/user.proto, relation/relation.proto,
// group/group.proto, conversation/conversation.proto). Every key is always
// written here; the SDK decodes with encoding/json (openim-sdk-core
// internal/util/post.go), to which a missing key and a zero one are alike.

// APIResponse is the envelope of every openim-api answer, HTTP 200 whatever
// the outcome (openimsdk/tools apiresp).
type APIResponse[T any] struct {
	ErrCode int    `json:"errCode"`
	ErrMsg  string `json:"errMsg"`
	ErrDlt  string `json:"errDlt"`
	Data    T      `json:"data"`
}

// RequestPagination pages a list: pageNumber from 1.
type RequestPagination struct {
	PageNumber int32 `json:"pageNumber"`
	ShowNumber int32 `json:"showNumber"`
}

// UserInfo is sdkws.UserInfo.
type UserInfo struct {
	UserID           string `json:"userID"`
	Nickname         string `json:"nickname"`
	FaceURL          string `json:"faceURL"`
	Ex               string `json:"ex"`
	CreateTime       int64  `json:"createTime"`
	AppMangerLevel   int32  `json:"appMangerLevel"`
	GlobalRecvMsgOpt int32  `json:"globalRecvMsgOpt"`
}

// PublicUserInfo is sdkws.PublicUserInfo.
type PublicUserInfo struct {
	UserID   string `json:"userID"`
	Nickname string `json:"nickname"`
	FaceURL  string `json:"faceURL"`
	Ex       string `json:"ex"`
}

// FriendInfo is sdkws.FriendInfo.
type FriendInfo struct {
	OwnerUserID    string    `json:"ownerUserID"`
	Remark         string    `json:"remark"`
	CreateTime     int64     `json:"createTime"`
	FriendUser     *UserInfo `json:"friendUser"`
	AddSource      int32     `json:"addSource"`
	OperatorUserID string    `json:"operatorUserID"`
	Ex             string    `json:"ex"`
	IsPinned       bool      `json:"isPinned"`
}

// BlackInfo is sdkws.BlackInfo.
type BlackInfo struct {
	OwnerUserID    string          `json:"ownerUserID"`
	CreateTime     int64           `json:"createTime"`
	BlackUserInfo  *PublicUserInfo `json:"blackUserInfo"`
	AddSource      int32           `json:"addSource"`
	OperatorUserID string          `json:"operatorUserID"`
	Ex             string          `json:"ex"`
}

// FriendRequest is sdkws.FriendRequest.
type FriendRequest struct {
	FromUserID    string `json:"fromUserID"`
	FromNickname  string `json:"fromNickname"`
	FromFaceURL   string `json:"fromFaceURL"`
	ToUserID      string `json:"toUserID"`
	ToNickname    string `json:"toNickname"`
	ToFaceURL     string `json:"toFaceURL"`
	HandleResult  int32  `json:"handleResult"`
	ReqMsg        string `json:"reqMsg"`
	CreateTime    int64  `json:"createTime"`
	HandlerUserID string `json:"handlerUserID"`
	HandleMsg     string `json:"handleMsg"`
	HandleTime    int64  `json:"handleTime"`
	Ex            string `json:"ex"`
}

// GroupInfo is sdkws.GroupInfo.
type GroupInfo struct {
	GroupID                string `json:"groupID"`
	GroupName              string `json:"groupName"`
	Notification           string `json:"notification"`
	Introduction           string `json:"introduction"`
	FaceURL                string `json:"faceURL"`
	OwnerUserID            string `json:"ownerUserID"`
	CreateTime             int64  `json:"createTime"`
	MemberCount            uint32 `json:"memberCount"`
	Ex                     string `json:"ex"`
	Status                 int32  `json:"status"`
	CreatorUserID          string `json:"creatorUserID"`
	GroupType              int32  `json:"groupType"`
	NeedVerification       int32  `json:"needVerification"`
	LookMemberInfo         int32  `json:"lookMemberInfo"`
	ApplyMemberFriend      int32  `json:"applyMemberFriend"`
	NotificationUpdateTime int64  `json:"notificationUpdateTime"`
	NotificationUserID     string `json:"notificationUserID"`
}

// GroupMemberFullInfo is sdkws.GroupMemberFullInfo.
type GroupMemberFullInfo struct {
	GroupID        string `json:"groupID"`
	UserID         string `json:"userID"`
	RoleLevel      int32  `json:"roleLevel"`
	JoinTime       int64  `json:"joinTime"`
	Nickname       string `json:"nickname"`
	FaceURL        string `json:"faceURL"`
	AppMangerLevel int32  `json:"appMangerLevel"`
	JoinSource     int32  `json:"joinSource"`
	OperatorUserID string `json:"operatorUserID"`
	Ex             string `json:"ex"`
	MuteEndTime    int64  `json:"muteEndTime"`
	InviterUserID  string `json:"inviterUserID"`
}

// GroupRequest is sdkws.GroupRequest.
type GroupRequest struct {
	UserInfo      *PublicUserInfo `json:"userInfo"`
	GroupInfo     *GroupInfo      `json:"groupInfo"`
	HandleResult  int32           `json:"handleResult"`
	ReqMsg        string          `json:"reqMsg"`
	HandleMsg     string          `json:"handleMsg"`
	ReqTime       int64           `json:"reqTime"`
	HandleUserID  string          `json:"handleUserID"`
	HandleTime    int64           `json:"handleTime"`
	Ex            string          `json:"ex"`
	JoinSource    int32           `json:"joinSource"`
	InviterUserID string          `json:"inviterUserID"`
}

// Conversation is conversation.Conversation: a user's record of one
// conversation.
type Conversation struct {
	OwnerUserID           string `json:"ownerUserID"`
	ConversationID        string `json:"conversationID"`
	RecvMsgOpt            int32  `json:"recvMsgOpt"`
	ConversationType      int32  `json:"conversationType"`
	UserID                string `json:"userID"`
	GroupID               string `json:"groupID"`
	IsPinned              bool   `json:"isPinned"`
	AttachedInfo          string `json:"attachedInfo"`
	IsPrivateChat         bool   `json:"isPrivateChat"`
	GroupAtType           int32  `json:"groupAtType"`
	Ex                    string `json:"ex"`
	BurnDuration          int32  `json:"burnDuration"`
	MinSeq                int64  `json:"minSeq"`
	MaxSeq                int64  `json:"maxSeq"`
	MsgDestructTime       int64  `json:"msgDestructTime"`
	LatestMsgDestructTime int64  `json:"latestMsgDestructTime"`
	IsMsgDestruct         bool   `json:"isMsgDestruct"`
}

// UsersInfoReq is /user/get_users_info's body (user.getDesignateUsersReq).
type UsersInfoReq struct {
	UserIDs []string `json:"userIDs"`
}

// UsersInfoResp is its data (user.getDesignateUsersResp).
type UsersInfoResp struct {
	UsersInfo []*UserInfo `json:"usersInfo"`
}

// UserPageReq asks for a page of a user's list: /friend/get_black_list,
// /friend/get_friend_apply_list, /friend/get_self_friend_apply_list.
type UserPageReq struct {
	UserID     string             `json:"userID"`
	Pagination *RequestPagination `json:"pagination"`
}

// BlacksResp is /friend/get_black_list's data.
type BlacksResp struct {
	Blacks []*BlackInfo `json:"blacks"`
	Total  int32        `json:"total"`
}

// FriendApplyToResp is /friend/get_friend_apply_list's data; the proto
// names the list with a capital F (relation.getPaginationFriendsApplyToResp).
type FriendApplyToResp struct {
	FriendRequests []*FriendRequest `json:"FriendRequests"`
	Total          int32            `json:"total"`
}

// FriendApplyFromResp is /friend/get_self_friend_apply_list's data.
type FriendApplyFromResp struct {
	FriendRequests []*FriendRequest `json:"friendRequests"`
	Total          int32            `json:"total"`
}

// FriendsReq is /friend/get_friend_list's body.
type FriendsReq struct {
	Pagination *RequestPagination `json:"pagination"`
	UserID     string             `json:"userID"`
}

// FriendsResp is its data.
type FriendsResp struct {
	FriendsInfo []*FriendInfo `json:"friendsInfo"`
	Total       int32         `json:"total"`
}

// IncrementalReq asks what changed in a user's friends, joined groups or
// conversations since a version: /friend/get_incremental_friends,
// /group/get_incremental_join_groups, /conversation/get_incremental_conversations.
type IncrementalReq struct {
	UserID    string `json:"userID"`
	VersionID string `json:"versionID"`
	Version   uint64 `json:"version"`
}

// IncrementalFriendsResp is /friend/get_incremental_friends' data. Full
// tells the client to sync everything (/friend/get_friend_list and
// /friend/get_full_friend_user_ids) instead of applying the lists.
type IncrementalFriendsResp struct {
	Version     uint64        `json:"version"`
	VersionID   string        `json:"versionID"`
	Full        bool          `json:"full"`
	Delete      []string      `json:"delete"`
	Insert      []*FriendInfo `json:"insert"`
	Update      []*FriendInfo `json:"update"`
	SortVersion uint64        `json:"sortVersion"`
}

// IncrementalJoinGroupsResp is /group/get_incremental_join_groups' data.
type IncrementalJoinGroupsResp struct {
	Version     uint64       `json:"version"`
	VersionID   string       `json:"versionID"`
	Full        bool         `json:"full"`
	Delete      []string     `json:"delete"`
	Insert      []*GroupInfo `json:"insert"`
	Update      []*GroupInfo `json:"update"`
	SortVersion uint64       `json:"sortVersion"`
}

// IncrementalConversationsResp is /conversation/get_incremental_conversations' data.
type IncrementalConversationsResp struct {
	Version   uint64          `json:"version"`
	VersionID string          `json:"versionID"`
	Full      bool            `json:"full"`
	Delete    []string        `json:"delete"`
	Insert    []*Conversation `json:"insert"`
	Update    []*Conversation `json:"update"`
}

// IncrementalGroupMemberReq is one group of
// /group/get_incremental_group_members_batch.
type IncrementalGroupMemberReq struct {
	GroupID   string `json:"groupID"`
	VersionID string `json:"versionID"`
	Version   uint64 `json:"version"`
}

// IncrementalGroupMemberResp is one group's answer.
type IncrementalGroupMemberResp struct {
	Version     uint64                 `json:"version"`
	VersionID   string                 `json:"versionID"`
	Full        bool                   `json:"full"`
	Delete      []string               `json:"delete"`
	Insert      []*GroupMemberFullInfo `json:"insert"`
	Update      []*GroupMemberFullInfo `json:"update"`
	Group       *GroupInfo             `json:"group"`
	SortVersion uint64                 `json:"sortVersion"`
}

// BatchIncrementalGroupMemberReq is /group/get_incremental_group_members_batch's body.
type BatchIncrementalGroupMemberReq struct {
	UserID  string                       `json:"userID"`
	ReqList []*IncrementalGroupMemberReq `json:"reqList"`
}

// BatchIncrementalGroupMemberResp is its data, by group.
type BatchIncrementalGroupMemberResp struct {
	RespList map[string]*IncrementalGroupMemberResp `json:"respList"`
}

// FullIDsReq asks for every id of a user's (or a group's) list, with the
// hash of the ids the client holds.
type FullIDsReq struct {
	IDHash  uint64 `json:"idHash"`
	UserID  string `json:"userID,omitempty"`
	GroupID string `json:"groupID,omitempty"`
}

// FullUserIDsResp is /friend/get_full_friend_user_ids' and
// /group/get_full_group_member_user_ids' data.
type FullUserIDsResp struct {
	Version   uint64   `json:"version"`
	VersionID string   `json:"versionID"`
	Equal     bool     `json:"equal"`
	UserIDs   []string `json:"userIDs"`
}

// FullGroupIDsResp is /group/get_full_join_group_ids' data.
type FullGroupIDsResp struct {
	Version   uint64   `json:"version"`
	VersionID string   `json:"versionID"`
	Equal     bool     `json:"equal"`
	GroupIDs  []string `json:"groupIDs"`
}

// FullConversationIDsResp is /conversation/get_full_conversation_ids' data.
type FullConversationIDsResp struct {
	Version         uint64   `json:"version"`
	VersionID       string   `json:"versionID"`
	Equal           bool     `json:"equal"`
	ConversationIDs []string `json:"conversationIDs"`
}

// JoinedGroupsReq is /group/get_joined_group_list's body.
type JoinedGroupsReq struct {
	Pagination *RequestPagination `json:"pagination"`
	FromUserID string             `json:"fromUserID"`
}

// JoinedGroupsResp is its data.
type JoinedGroupsResp struct {
	Total  uint32       `json:"total"`
	Groups []*GroupInfo `json:"groups"`
}

// GroupMembersReq is /group/get_group_member_list's body.
type GroupMembersReq struct {
	Pagination *RequestPagination `json:"pagination"`
	GroupID    string             `json:"groupID"`
	Filter     int32              `json:"filter"`
	Keyword    string             `json:"keyword"`
}

// GroupMembersResp is its data.
type GroupMembersResp struct {
	Total   uint32                 `json:"total"`
	Members []*GroupMemberFullInfo `json:"members"`
}

// GroupsInfoReq is /group/get_groups_info's body.
type GroupsInfoReq struct {
	GroupIDs []string `json:"groupIDs"`
}

// GroupsInfoResp is its data.
type GroupsInfoResp struct {
	GroupInfos []*GroupInfo `json:"groupInfos"`
}

// GroupApplicationsReq is /group/get_recv_group_applicationList's body.
type GroupApplicationsReq struct {
	Pagination *RequestPagination `json:"pagination"`
	FromUserID string             `json:"fromUserID"`
}

// UserGroupApplicationsReq is /group/get_user_req_group_applicationList's body.
type UserGroupApplicationsReq struct {
	Pagination *RequestPagination `json:"pagination"`
	UserID     string             `json:"userID"`
}

// GroupApplicationsResp is the data of both group application lists.
type GroupApplicationsResp struct {
	Total         uint32          `json:"total"`
	GroupRequests []*GroupRequest `json:"groupRequests"`
}

// OwnerConversationsReq is /conversation/get_owner_conversation's body.
type OwnerConversationsReq struct {
	UserID     string             `json:"userID"`
	Pagination *RequestPagination `json:"pagination"`
}

// OwnerConversationsResp is its data.
type OwnerConversationsResp struct {
	Total         int64           `json:"total"`
	Conversations []*Conversation `json:"conversations"`
}

// ConversationsReq is /conversation/get_conversations' body, and with no
// ids /conversation/get_all_conversations'.
type ConversationsReq struct {
	OwnerUserID     string   `json:"ownerUserID"`
	ConversationIDs []string `json:"conversationIDs,omitempty"`
}

// ConversationsResp is the data of both.
type ConversationsResp struct {
	Conversations []*Conversation `json:"conversations"`
}

// UserCommandsReq is /user/process_user_command_get_all's body.
type UserCommandsReq struct {
	UserID string `json:"userID"`
}

// UserCommand is user.AllCommandInfoResp.
type UserCommand struct {
	Type       int32  `json:"type"`
	CreateTime int64  `json:"createTime"`
	UUID       string `json:"uuid"`
	Value      string `json:"value"`
	Ex         string `json:"ex"`
}

// UserCommandsResp is its data; the proto names the list with a capital C.
type UserCommandsResp struct {
	CommandResp []*UserCommand `json:"CommandResp"`
}

// AdminSendMsgReq is /msg/send_msg's body (open-im-server
// pkg/apistruct SendMsgReq): an admin sends as sendID; content is the
// message body as JSON, {"content":"…"} for a text.
type AdminSendMsgReq struct {
	SendID           string         `json:"sendID"`
	RecvID           string         `json:"recvID"`
	GroupID          string         `json:"groupID"`
	SenderNickname   string         `json:"senderNickname"`
	SenderFaceURL    string         `json:"senderFaceURL"`
	SenderPlatformID int32          `json:"senderPlatformID"`
	Content          map[string]any `json:"content"`
	ContentType      int32          `json:"contentType"`
	SessionType      int32          `json:"sessionType"`
	IsOnlineOnly     bool           `json:"isOnlineOnly"`
	NotOfflinePush   bool           `json:"notOfflinePush"`
	SendTime         int64          `json:"sendTime"`
	Ex               string         `json:"ex"`
}

// SendMsgResult is /msg/send_msg's data (msg.SendMsgResp).
type SendMsgResult struct {
	ServerMsgID string `json:"serverMsgID"`
	ClientMsgID string `json:"clientMsgID"`
	SendTime    int64  `json:"sendTime"`
}

// NotificationElem is the content of a notification message: its tips as
// a JSON string (open-im-server pkg/notification, sdkws.NotificationElem).
type NotificationElem struct {
	Detail string `json:"detail"`
}

// GroupCreatedTips is sdkws.GroupCreatedTips, the detail of a 1501.
type GroupCreatedTips struct {
	Group                *GroupInfo             `json:"group"`
	OpUser               *GroupMemberFullInfo   `json:"opUser"`
	MemberList           []*GroupMemberFullInfo `json:"memberList"`
	OperationTime        int64                  `json:"operationTime"`
	GroupOwnerUser       *GroupMemberFullInfo   `json:"groupOwnerUser"`
	GroupMemberVersion   uint64                 `json:"groupMemberVersion"`
	GroupMemberVersionID string                 `json:"groupMemberVersionID"`
}

// MemberInvitedTips is sdkws.MemberInvitedTips, the detail of a 1509.
type MemberInvitedTips struct {
	Group                *GroupInfo             `json:"group"`
	OpUser               *GroupMemberFullInfo   `json:"opUser"`
	InvitedUserList      []*GroupMemberFullInfo `json:"invitedUserList"`
	OperationTime        int64                  `json:"operationTime"`
	GroupMemberVersion   uint64                 `json:"groupMemberVersion"`
	GroupMemberVersionID string                 `json:"groupMemberVersionID"`
	InviterUser          *GroupMemberFullInfo   `json:"inviterUser"`
}

// FromToUserID is sdkws.FromToUserID.
type FromToUserID struct {
	FromUserID string `json:"fromUserID"`
	ToUserID   string `json:"toUserID"`
}

// FriendApplicationApprovedTips is sdkws.FriendApplicationApprovedTips,
// the detail of a 1201.
type FriendApplicationApprovedTips struct {
	FromToUserID    *FromToUserID  `json:"fromToUserID"`
	HandleMsg       string         `json:"handleMsg"`
	FriendVersion   uint64         `json:"friendVersion"`
	FriendVersionID string         `json:"friendVersionID"`
	Request         *FriendRequest `json:"request"`
}
