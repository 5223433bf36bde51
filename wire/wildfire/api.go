package wildfire

// The server (admin) API on port 18080 (wildfire.md §4): signed POSTs with a
// JSON body (see sign.go), except GET /admin/health. Every answer is HTTP 200
// with an APIResult envelope whose code is an ErrorCode. Shapes were read
// from im-server's pojo classes (cn.wildfirechat.pojos and, in older trees,
// com.xiaoleilu.loServer.pojos; Gson field names) or, where no class was at
// hand, from wildfire.md §4; each type names its source. A benchmark needs: create users,
// get tokens, create groups with members, create chatrooms (members join
// over MQTT with TopicJoinChatroom; there is no admin join), the online
// count and health.

// Admin API paths (§4, common/APIPath.java).
const (
	PathUserCreate     = "/admin/user/create"
	PathUserGetToken   = "/admin/user/get_token"
	PathUserGetInfo    = "/admin/user/get_info"
	PathUserDestroy    = "/admin/user/destroy"
	PathUserOnline     = "/admin/user/onlinestatus"
	PathOnlineCount    = "/admin/user/online_count"
	PathKickoffClient  = "/admin/user/kickoff_client"
	PathGroupCreate    = "/admin/group/create"
	PathGroupMemberAdd = "/admin/group/member/add"
	PathGroupMemberDel = "/admin/group/member/del"
	PathGroupDismiss   = "/admin/group/del"
	PathGroupGetInfo   = "/admin/group/get_info"
	PathGroupMembers   = "/admin/group/member/list"
	PathMessageSend    = "/admin/message/send"
	PathChatroomCreate = "/admin/chatroom/create"
	PathChatroomDel    = "/admin/chatroom/del"
	PathHealth         = "/admin/health" // GET, no signature
)

// MsgSuccess is the envelope's msg on success.
const MsgSuccess = "success"

// APIResult is the envelope of every admin answer (RestResult): code, msg,
// and result, which Gson leaves out when null (on errors).
type APIResult[T any] struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
	// Result is omitted when zero, as Gson omits a null result.
	Result T `json:"result,omitzero"`
}

// Err returns the code as an ErrorCode (codes are 0–255).
func (r APIResult[T]) Err() ErrorCode { return ErrorCode(r.Code) }

// OK reports code 0.
func (r APIResult[T]) OK() bool { return r.Code == 0 }

// CreateUserReq is the body of /admin/user/create. name is required and
// unique (a duplicate is code 4, §14); an empty userId makes the server
// generate one. Source: pojos/InputOutputUserInfo.java.
type CreateUserReq struct {
	UserID      string `json:"userId,omitempty"`
	Name        string `json:"name"`
	Password    string `json:"password,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	Portrait    string `json:"portrait,omitempty"`
	Gender      int    `json:"gender,omitempty"`
	Mobile      string `json:"mobile,omitempty"`
	Email       string `json:"email,omitempty"`
	Address     string `json:"address,omitempty"`
	Company     string `json:"company,omitempty"`
	Social      string `json:"social,omitempty"`
	Extra       string `json:"extra,omitempty"`
	Type        int    `json:"type"` // UserNormal, UserAdmin, …
}

// CreateUserResult is /admin/user/create's result. Source: pojos/OutputCreateUser.java.
type CreateUserResult struct {
	UserID string `json:"userId"`
	Name   string `json:"name"`
}

// GetTokenReq is the body of /admin/user/get_token: one session per
// (userId, clientId); the user need not exist. Source: pojos/InputGetToken.java.
type GetTokenReq struct {
	UserID   string `json:"userId"`
	ClientID string `json:"clientId"` // ≤ 64 chars, unique per simulated device
	Platform int32  `json:"platform"` // Platform*; PlatformLinux for a load client
}

// GetTokenResult is get_token's result; Token is an IM token (ParseIMToken).
// Source: OutputGetIMTokenData.java.
type GetTokenResult struct {
	UserID string `json:"userId"`
	Token  string `json:"token"`
}

// GroupInfoJSON is a group's info in the admin API (snake_case, unlike the
// user API). type: Group*. Source: pojos/PojoGroupInfo.java.
type GroupInfoJSON struct {
	TargetID       string `json:"target_id,omitempty"`
	Name           string `json:"name"`
	Portrait       string `json:"portrait,omitempty"`
	Owner          string `json:"owner,omitempty"`
	Type           int32  `json:"type"`
	Extra          string `json:"extra,omitempty"`
	Mute           int32  `json:"mute,omitempty"`
	JoinType       int32  `json:"join_type,omitempty"`
	PrivateChat    int32  `json:"private_chat,omitempty"`
	Searchable     int32  `json:"searchable,omitempty"`
	HistoryMessage int32  `json:"history_message,omitempty"`
	MaxMemberCount int32  `json:"max_member_count,omitempty"` // default limit 2000 (§4)
}

// GroupMemberJSON is one member; type: Member*. Source: pojos/PojoGroupMember.java.
type GroupMemberJSON struct {
	MemberID string `json:"member_id"`
	Alias    string `json:"alias,omitempty"`
	Type     int32  `json:"type"`
	Extra    string `json:"extra,omitempty"`
}

// GroupJSON is a group with its members. Source: wildfire.md §4 group/create.
type GroupJSON struct {
	GroupInfo GroupInfoJSON     `json:"group_info"`
	Members   []GroupMemberJSON `json:"members"`
}

// CreateGroupReq is the body of /admin/group/create; the owner is added
// automatically, an existing target_id is code 11. Source:
// pojos/InputCreateGroup.java (+ InputGroupBase: operator, to_lines,
// notify_message).
type CreateGroupReq struct {
	Operator      string          `json:"operator"`
	Group         GroupJSON       `json:"group"`
	ToLines       []int32         `json:"to_lines,omitempty"`
	NotifyMessage *MessagePayload `json:"notify_message,omitempty"`
}

// CreateGroupResult is group/create's result. Source: OutputCreateGroupResult.java.
type CreateGroupResult struct {
	GroupID string `json:"group_id"`
}

// AddGroupMemberReq is the body of /admin/group/member/add. Source:
// pojos/InputAddGroupMember.java.
type AddGroupMemberReq struct {
	Operator      string            `json:"operator"`
	GroupID       string            `json:"group_id"`
	Members       []GroupMemberJSON `json:"members"`
	ToLines       []int32           `json:"to_lines,omitempty"`
	NotifyMessage *MessagePayload   `json:"notify_message,omitempty"`
}

// CreateChatroomReq is the body of /admin/chatroom/create; title is
// required, an empty chatroomId makes the server generate one; state 0
// normal, 1 not started, 2 ended. Source: pojos/InputCreateChatroom.java.
type CreateChatroomReq struct {
	ChatroomID string `json:"chatroomId,omitempty"`
	Title      string `json:"title"`
	Desc       string `json:"desc,omitempty"`
	Portrait   string `json:"portrait,omitempty"`
	Extra      string `json:"extra,omitempty"`
	State      int    `json:"state,omitempty"`
}

// CreateChatroomResult is chatroom/create's result. Source: pojos/OutputCreateChatroom.java.
type CreateChatroomResult struct {
	ChatroomID string `json:"chatroomId"`
}

// ConversationJSON is a conversation in the admin API (§4 Conversation JSON).
type ConversationJSON struct {
	Type   int32  `json:"type"` // Conv*
	Target string `json:"target"`
	Line   int32  `json:"line"`
}

// MessagePayload is a message's content in the admin API (§4). Source:
// pojos/MessagePayload.java.
type MessagePayload struct {
	Type              int32    `json:"type"` // Content*
	SearchableContent string   `json:"searchableContent,omitempty"`
	PushContent       string   `json:"pushContent,omitempty"`
	PushData          string   `json:"pushData,omitempty"`
	Content           string   `json:"content,omitempty"`
	Base64edData      string   `json:"base64edData,omitempty"`
	MediaType         int32    `json:"mediaType,omitempty"`
	RemoteMediaURL    string   `json:"remoteMediaUrl,omitempty"`
	PersistFlag       int32    `json:"persistFlag"` // Persist*
	ExpireDuration    int32    `json:"expireDuration,omitempty"`
	MentionedType     int32    `json:"mentionedType,omitempty"`
	MentionedTarget   []string `json:"mentionedTarget,omitempty"`
	Extra             string   `json:"extra,omitempty"`
}

// SendMessageReq is the body of /admin/message/send: a message injected
// server-side, no client needed. Source: pojos/SendMessageData.java
// (sender, conv, payload); toUsers from wildfire.md §4.
type SendMessageReq struct {
	Sender  string           `json:"sender"`
	Conv    ConversationJSON `json:"conv"`
	Payload MessagePayload   `json:"payload"`
	ToUsers []string         `json:"toUsers,omitempty"`
}

// SendMessageResult is message/send's result. Source: wildfire.md §4.
type SendMessageResult struct {
	MessageUID int64 `json:"messageUid"`
	Timestamp  int64 `json:"timestamp"`
}

// OnlineCountNode is one element of online_count's result (a list; a single
// community node reports node 1). Source: pojos/GetOnlineUserCountResult.java.
type OnlineCountNode struct {
	Node  int `json:"node"`
	Count int `json:"count"`
}

// HealthNode is one element of GET /admin/health's result. Source:
// pojos/HealthCheckResult.java.
type HealthNode struct {
	Node string `json:"node"`
	CPU  struct {
		Cores int     `json:"cores"`
		Load  float64 `json:"load"`
	} `json:"cpu"`
	Memory struct {
		Avail int64 `json:"avail"`
		Max   int64 `json:"max"`
		Free  int64 `json:"free"`
	} `json:"memory"`
	Disk struct {
		Usable int64 `json:"usable"`
		Free   int64 `json:"free"`
		Space  int64 `json:"space"`
	} `json:"disk"`
}

// The deletions' bodies: /admin/user/destroy, /admin/group/del (operator
// and group_id required, else 251), /admin/chatroom/del. Source: pojos
// InputDestroyUser.java, InputDismissGroup.java, InputDestoryChatroom.java.
type (
	DestroyUserReq struct {
		UserID string `json:"userId"`
	}
	DismissGroupReq struct {
		Operator string `json:"operator"`
		GroupID  string `json:"group_id"`
	}
	DestroyChatroomReq struct {
		ChatroomID string `json:"chatroomId"`
	}
)

// The lookups: /admin/user/get_info (InputGetUserInfo: a userId, else a
// name, else a mobile; 253 for a user unknown or destroyed) answering
// InputOutputUserInfo, and /admin/group/get_info (InputGetGroup; 253 for
// a group unknown or dismissed) answering PojoGroupInfo, whose fields
// are named as its Gson has them. Only what a client checks is here.
type (
	GetUserInfoReq struct {
		UserID string `json:"userId,omitempty"`
		Name   string `json:"name,omitempty"`
		Mobile string `json:"mobile,omitempty"`
	}
	UserInfo struct {
		UserID      string `json:"userId"`
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
	}
	GetGroupReq struct {
		GroupID string `json:"groupId"`
	}
	GroupInfo struct {
		TargetID string `json:"target_id"`
		Name     string `json:"name"`
		Owner    string `json:"owner"`
		Type     int    `json:"type"`
	}
)
