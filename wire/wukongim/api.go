package wukongim

import "time"

// The HTTP API (port 5001, wukongim.md §8) a load client and a reference
// server both speak. Shapes were read from WuKongIM/WuKongIM v2.x sources
// (the revision the code index holds, v2 layout with internal/api and
// WuKongIMGoProto); each type names its file.
//
// Envelopes (pkg/wkhttp/http.go): success is HTTP 200 {"status":200}, or
// {"data":…,"status":200}; a refusal is HTTP 400 {"msg":"…","status":400}.
// Some answers are bare JSON (messagesync, route, health, varz); with a
// managerToken configured every request needs the header "token" or gets a
// bare 401. /user/token answers a banned uid with HTTP 200 {"status":19}:
// check the body's status, not only the HTTP one. []byte fields (payload)
// are base64 strings.
//
// Chat rooms: v2 has no chatroom join. The nearest is channel type 9
// (ChannelLive, "直播频道"; GoProto common.go: "live channels keep no
// recent-conversation data"): members are added and removed like a group's,
// with POST /channel/subscriber_add and /channel/subscriber_remove
// (channel_type 9; the channel is created if missing). The v2 server sources
// in the index skip conversations for Live (channel.go addSubscriberWithReq,
// the conversation manager's Push), so a member gets no recent-conversation
// entry and catches up only through /channel/messagesync. Temp subscribers
// (temp_subscriber 1) are refused in v2.2.x ("新版本临时订阅者已不支持",
// 400); ChannelInfo (6) is described in GoProto as the type for temporary
// subscribers but has no join API either. v2.2.x servers ignore the SUB
// packet (sub.go).

// API paths and the default port.
const (
	DefaultAPIPort = 5001

	PathUserToken          = "/user/token"
	PathChannel            = "/channel"
	PathSubscriberAdd      = "/channel/subscriber_add"
	PathSubscriberRemove   = "/channel/subscriber_remove"
	PathMessageSend        = "/message/send"
	PathChannelMessageSync = "/channel/messagesync"
	PathChannelMaxSeq      = "/channel/max_message_seq"
	// v2.1.2 to v2.2.5 internal/api/channel.go channelDelete: a person
	// channel is refused (400); one that does not exist answers 200.
	PathChannelDelete = "/channel/delete"
	PathRoute         = "/route"
	PathHealth        = "/health"
	PathVarz          = "/varz"
	// v2.1.2 and v2.2.5 internal/api/user.go: the online connections of
	// the uids asked (there is no /user/online).
	PathUserOnlineStatus = "/user/onlinestatus"
	// internal/api/conversation.go: a user's conversations with their
	// newest messages, what an SDK fetches at startup and reconnect.
	PathConversationSync = "/conversation/sync"
	// internal/api/connz.go: the connections, paged and sorted.
	PathConnz = "/connz"
)

// OnlineStatus is one online connection in /user/onlinestatus's answer (the
// request is a bare JSON array of uids; uids offline are left out, and no
// connection at all answers {"status":200}).
type OnlineStatus struct {
	UID        string `json:"uid"`
	DeviceFlag uint8  `json:"device_flag"`
	Online     int    `json:"online"`
}

// ConversationSyncReq is /conversation/sync's body (v2.2.5; v2.1.2 has the
// first four). Nothing is listed unless MsgCount > 0.
type ConversationSyncReq struct {
	UID                 string  `json:"uid"`
	Version             int64   `json:"version"`
	LastMsgSeqs         string  `json:"last_msg_seqs"` // "channelID:channelType:seq|…"
	MsgCount            int     `json:"msg_count"`
	OnlyUnread          int     `json:"only_unread,omitempty"`
	ExcludeChannelTypes []uint8 `json:"exclude_channel_types,omitempty"`
	Page                int     `json:"page,omitempty"`
	PageSize            int     `json:"page_size,omitempty"`
}

// SyncConversation is one conversation of /conversation/sync's answer, a
// bare JSON array of them.
type SyncConversation struct {
	ChannelID       string        `json:"channel_id"`
	ChannelType     uint8         `json:"channel_type"`
	Unread          int           `json:"unread"`
	Timestamp       int64         `json:"timestamp"`
	LastMsgSeq      uint64        `json:"last_msg_seq"`
	LastClientMsgNo string        `json:"last_client_msg_no"`
	OffsetMsgSeq    uint64        `json:"offset_msg_seq"`
	ReadedToMsgSeq  uint64        `json:"readed_to_msg_seq"`
	Version         int64         `json:"version"`
	Recents         []MessageResp `json:"recents"`
}

// Connz is /connz's answer; ?sort=, offset, limit (default 20) and uid (a
// substring) select the connections.
type Connz struct {
	Connections []ConnInfo `json:"connections"`
	Now         time.Time  `json:"now"`
	Total       int        `json:"total"`
	Offset      int        `json:"offset"`
	Limit       int        `json:"limit"`
}

// ConnInfo is one connection in /connz.
type ConnInfo struct {
	ID              int64  `json:"id"`
	UID             string `json:"uid"`
	IP              string `json:"ip"`
	Port            int    `json:"port"`
	LastActivity    string `json:"last_activity"`
	Uptime          string `json:"uptime"`
	Idle            string `json:"idle"`
	PendingBytes    int    `json:"pending_bytes"`
	InMsgs          int64  `json:"in_msgs"`
	OutMsgs         int64  `json:"out_msgs"`
	InMsgBytes      int64  `json:"in_msg_bytes"`
	OutMsgBytes     int64  `json:"out_msg_bytes"`
	InPackets       int64  `json:"in_packets"`
	OutPackets      int64  `json:"out_packets"`
	InPacketBytes   int64  `json:"in_packet_bytes"`
	OutPacketBytes  int64  `json:"out_packet_bytes"`
	Device          string `json:"device"`
	DeviceID        string `json:"device_id"`
	Version         uint8  `json:"version"`
	ProxyTypeFormat string `json:"proxy_type_format"`
	LeaderID        uint64 `json:"leader_id"`
	NodeID          uint64 `json:"node_id"`
}

// ChannelDeleteReq is /channel/delete's body (channel_model.go).
type ChannelDeleteReq struct {
	ChannelID   string `json:"channel_id"`
	ChannelType uint8  `json:"channel_type"`
}

// Result is the envelope of answers without data (pkg/wkhttp/http.go
// ResponseOK, ResponseError, ResponseStatus). Fields are in the order gin
// writes its sorted map keys.
type Result struct {
	Msg    string `json:"msg,omitempty"`
	Status int    `json:"status"`
}

// OK reports status 200.
func (r Result) OK() bool { return r.Status == 200 }

// DataResult is the envelope of answers with data (pkg/wkhttp/http.go
// ResponseOKWithData): {"data":…,"status":200}.
type DataResult[T any] struct {
	Data   T      `json:"data"`
	Msg    string `json:"msg,omitempty"`
	Status int    `json:"status"`
}

// UserTokenReq is the body of POST /user/token, which creates the user and
// device if absent, else replaces the token; per (uid, device_flag). uid and token must be
// non-empty, uid without '@', '#', '&'. Level master kicks the older
// connections of that uid and device flag.
//
// Source: internal/api/user.go (UpdateTokenReq).
type UserTokenReq struct {
	UID         string `json:"uid"`
	Token       string `json:"token"`
	DeviceFlag  uint8  `json:"device_flag"`  // DeviceApp, DeviceWeb, DevicePC
	DeviceLevel uint8  `json:"device_level"` // DeviceLevelSlave, DeviceLevelMaster
}

// ChannelCreateReq is the body of POST /channel, which creates or updates a
// channel and adds subscribers; person channels (type 1) are refused. Flags are 0/1.
//
// Source: internal/api/channel_model.go (channelInfoReq + channelCreateReq).
type ChannelCreateReq struct {
	ChannelID     string   `json:"channel_id"`
	ChannelType   uint8    `json:"channel_type"`
	Large         int      `json:"large"`
	Ban           int      `json:"ban"`
	Disband       int      `json:"disband"`
	SendBan       int      `json:"send_ban"`
	AllowStranger int      `json:"allow_stranger"`
	Reset         int      `json:"reset"` // 1: drop the existing subscribers first
	Subscribers   []string `json:"subscribers"`
}

// SubscriberAddReq is the body of POST /channel/subscriber_add; channel_type 0 means
// group; the channel is created if missing; subscribers must hold a non-empty
// uid; temp_subscriber 1 is refused by v2.2.x.
//
// Source: internal/api/channel_model.go (subscriberAddReq).
type SubscriberAddReq struct {
	ChannelID      string   `json:"channel_id"`
	ChannelType    uint8    `json:"channel_type"`
	Reset          int      `json:"reset"`
	TempSubscriber int      `json:"temp_subscriber"`
	Subscribers    []string `json:"subscribers"`
}

// SubscriberRemoveReq is the body of POST /channel/subscriber_remove.
//
// Source: internal/api/channel_model.go (subscriberRemoveReq).
type SubscriberRemoveReq struct {
	ChannelID      string   `json:"channel_id"`
	ChannelType    uint8    `json:"channel_type"`
	TempSubscriber int      `json:"temp_subscriber"`
	Subscribers    []string `json:"subscribers"`
}

// MessageHeader holds, as 0/1, the SEND/RECV header's NoPersist, RedDot and
// SyncOnce flags.
//
// Source: internal/types/message.go (MessageHeader).
type MessageHeader struct {
	NoPersist int `json:"no_persist"`
	RedDot    int `json:"red_dot"`
	SyncOnce  int `json:"sync_once"`
}

// MessageSendReq is the body of POST /message/send. An empty from_uid sends as the system
// uid; payload must be non-empty; channel_id and subscribers are exclusive,
// and subscribers needs header.sync_once 1 (the answer is then a bare Result,
// no data). An empty client_msg_no gets a generated one.
//
// Source: internal/api/message_model.go (messageSendReq).
type MessageSendReq struct {
	Header      MessageHeader `json:"header"`
	ClientMsgNo string        `json:"client_msg_no"`
	StreamNo    string        `json:"stream_no,omitempty"`
	FromUID     string        `json:"from_uid"`
	ChannelID   string        `json:"channel_id"`
	ChannelType uint8         `json:"channel_type"`
	Expire      uint32        `json:"expire"`
	Subscribers []string      `json:"subscribers,omitempty"`
	Payload     []byte        `json:"payload"` // plaintext; base64 in JSON
	TagKey      string        `json:"tag_key,omitempty"`
}

// MessageSendResult is the data of /message/send's answer, wrapped:
// DataResult[MessageSendResult]. message_id is a JSON number (an int64
// snowflake: above 2^53, so a JavaScript client loses precision).
//
// Source: internal/api/message.go (send, ResponseOKWithData).
type MessageSendResult struct {
	MessageID   int64  `json:"message_id"`
	ClientMsgNo string `json:"client_msg_no"`
}

// Pull modes of /channel/messagesync (internal/api/channel.go PullMode).
const (
	PullDown = 0 // older: seqs in (end_message_seq, start_message_seq], newest limit
	PullUp   = 1 // newer: seqs in [start_message_seq, end_message_seq), 0 = no end
)

// ChannelMessageSyncReq is the body of POST /channel/messagesync, the offline
// pull of one channel by seq. login_uid and channel_id are required; a person channel is
// named by the peer's uid (the server pairs it with login_uid). start = end =
// 0 returns the last limit messages; limit is capped at 10000. A late member
// catching up sends pull_mode 1, start_message_seq = last seq seen + 1,
// end_message_seq 0, limit > 0, and repeats from the last returned seq + 1
// while more is 1.
//
// Source: internal/api/channel.go (syncMessages' request).
type ChannelMessageSyncReq struct {
	LoginUID        string `json:"login_uid"`
	ChannelID       string `json:"channel_id"`
	ChannelType     uint8  `json:"channel_type"`
	StartMessageSeq uint64 `json:"start_message_seq"`
	EndMessageSeq   uint64 `json:"end_message_seq"`
	Limit           int    `json:"limit"`
	PullMode        int    `json:"pull_mode"` // PullDown or PullUp
}

// ChannelMessageSyncResp is the answer of /channel/messagesync, bare (no
// status/data envelope), messages in ascending seq. start/end echo the
// request; more is 1 when a full page came back. A channel never written to
// answers the zero value with messages [].
//
// Source: internal/api/channel_model.go (syncMessageResp).
type ChannelMessageSyncResp struct {
	StartMessageSeq uint64        `json:"start_message_seq"`
	EndMessageSeq   uint64        `json:"end_message_seq"`
	More            int           `json:"more"`
	Messages        []MessageResp `json:"messages"`
}

// MessageResp is one stored message. message_seq is a uint64 here (u32 on the
// wire); payload is the stored plaintext (base64 in JSON); from_uid is "" for
// the system uid; a person channel's channel_id is the other party of
// from_uid. Newer revisions add stream fields (stream_id, stream_idstr,
// streams, end, end_reason, stream_data), all omitempty.
//
// Source: internal/types/message.go (MessageResp).
type MessageResp struct {
	Header       MessageHeader `json:"header"`
	Setting      uint8         `json:"setting"`
	MessageID    int64         `json:"message_id"`
	MessageIDStr string        `json:"message_idstr"`
	ClientMsgNo  string        `json:"client_msg_no"`
	StreamNo     string        `json:"stream_no,omitempty"`
	MessageSeq   uint64        `json:"message_seq"`
	FromUID      string        `json:"from_uid"`
	ChannelID    string        `json:"channel_id"`
	ChannelType  uint8         `json:"channel_type"`
	Topic        string        `json:"topic,omitempty"`
	Expire       uint32        `json:"expire"`
	Timestamp    int32         `json:"timestamp"` // unix seconds
	Payload      []byte        `json:"payload"`
}

// ChannelMaxSeqResp is the bare answer of GET
// /channel/max_message_seq?channel_id=&channel_type=.
//
// Source: internal/api/channel.go (getChannelMaxMessageSeq).
type ChannelMaxSeqResp struct {
	MessageSeq uint64 `json:"message_seq"`
}

// RouteResp is the bare answer of GET /route?intranet=0|1; with intranet=1 only tcp_addr
// is set (intranet.tcpAddr).
//
// Source: internal/api/route.go (routeUserIMAddr).
type RouteResp struct {
	TCPAddr string `json:"tcp_addr"`
	WSAddr  string `json:"ws_addr"`
	WSSAddr string `json:"wss_addr"`
}

// HealthResp is the answer of GET /health: {"status":"ok"}.
//
// Source: internal/api/server_http.go (setRoutes).
type HealthResp struct {
	Status string `json:"status"`
}

// Varz is the bare answer of GET /varz, cut to the fields a benchmark reads
// (the server adds addresses, commit, manager settings and, with
// ?show=conn, conns). In that revision in_msgs is SEND + SENDACK + RECVACK counts + PING *bytes* +
// CONNECT count and out_msgs RECV + RECVACK counts + PONG bytes + CONNACK
// count (RECVACK in both; several of those counters stay 0, §13): use them as
// rough live figures, not exact message counts.
//
// Source: internal/api/varz.go (Varz).
type Varz struct {
	ServerID    string  `json:"server_id"`
	ServerName  string  `json:"server_name"`
	Version     string  `json:"version"`
	Connections int     `json:"connections"`
	Uptime      string  `json:"uptime"`
	Goroutine   int     `json:"goroutine"`
	Mem         int64   `json:"mem"` // RSS bytes
	CPU         float64 `json:"cpu"` // percent
	InMsgs      int64   `json:"in_msgs"`
	OutMsgs     int64   `json:"out_msgs"`
	InBytes     int64   `json:"in_bytes"`
	OutBytes    int64   `json:"out_bytes"`
	SlowClients int64   `json:"slow_clients"` // never set in that revision: 0
	RetryQueue  int64   `json:"retry_queue"`  // RECVs awaiting RECVACK
}
