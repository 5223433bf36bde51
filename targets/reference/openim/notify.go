package openim

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// Notifications (FrontEnd.Notifications), each as open-im-server sends it
// (pkg/notification NotificationSender.send): a MsgData from the operator
// with msgFrom 200, the notification's content type, and as content
// {"detail": <its tips as JSON>}; a group's goes to the group (sessionType
// 3), a friend's to the pair (sessionType 1). The core stores it as a
// system message (never faulted), which the push frames split in two
// (push.go).

// isNotificationType reports a content type in OpenIM's notification range
// (protocol constant.go NotificationBegin..NotificationEnd).
func isNotificationType(t int32) bool { return t >= 1000 && t <= 5000 }

// notificationOptions are the options of the unstored notification push:
// msgprocessor.NewOptions with isSendMsg on, then offline push and unread
// count handed to the stored copy (categorizeMessageLists).
func notificationOptions() map[string]bool {
	return map[string]bool{"isNotNotification": false, "isSendMsg": true, "history": false, "persistent": false,
		"offlinePush": false, "unreadCount": false, "conversationUpdate": false, "senderSync": true,
		"notPrivate": false, "senderConversationUpdate": false, "reactionFromCache": false}
}

// msgIDByMD5 is a client message id the server makes (tools idutil
// GetMsgIDByMD5): md5 of the time, the sender and a random number.
func msgIDByMD5(sendID string) string {
	sum := md5.Sum([]byte(strconv.FormatInt(time.Now().UnixNano(), 10) + sendID + strconv.FormatUint(rand.Uint64(), 10)))
	return hex.EncodeToString(sum[:])
}

// notify sends one notification from sendID; failures are only logged, as
// the real sender's are.
func (a *API) notify(k core.ConvKey, sendID, recvID string, contentType int32, tips any) {
	detail, err := json.Marshal(tips)
	if err != nil {
		return
	}
	content, err := json.Marshal(wire.NotificationElem{Detail: string(detail)})
	if err != nil {
		return
	}
	md := &pb.MsgData{SendID: sendID, RecvID: recvID, MsgFrom: wire.MsgFromSystem, ContentType: contentType,
		Content: content, CreateTime: time.Now().UnixMilli(), ClientMsgID: msgIDByMD5(sendID)}
	if k.Kind == core.Group {
		md.SessionType, md.GroupID = wire.SessionGroup, k.ID
	} else {
		md.SessionType = wire.SessionSingle
	}
	id := serverMsgID(sendID, time.Now())
	payload, err := toPayload(md, id)
	if err != nil {
		return
	}
	m, err := a.Core.Send(&core.Message{Conv: k, Sender: sendID, ClientID: md.ClientMsgID, Payload: payload, System: true})
	if err == nil {
		a.reads.sent(sendID, convID(k), m.Seq)
	}
}

// notifyGroupCreated sends GroupCreatedNotification (1501) to the new
// group (internal/rpc/group notification.go GroupCreatedNotification).
func (a *API) notifyGroupCreated(op caller, g *wire.GroupInfo) {
	if !a.Notifications || g == nil {
		return
	}
	members, err := a.Core.Members(g.GroupID)
	if err != nil {
		return
	}
	list := a.members(g.GroupID, members)
	tips := &wire.GroupCreatedTips{Group: g, OpUser: a.opMember(op, g.GroupID), MemberList: list,
		OperationTime: time.Now().UnixMilli(), GroupOwnerUser: list[0]}
	tips.GroupMemberVersionID, tips.GroupMemberVersion = listVersion("groupMember", g.GroupID, sortedCopy(members))
	a.notify(core.GroupKey(g.GroupID), op.user, g.GroupID, wire.ContentGroupCreated, tips)
}

// notifyMembersInvited sends MemberInvitedNotification (1509) to the group.
func (a *API) notifyMembersInvited(op caller, groupID string, invited []string) {
	if !a.Notifications || len(invited) == 0 {
		return
	}
	members, err := a.Core.Members(groupID)
	if err != nil {
		return
	}
	tips := &wire.MemberInvitedTips{Group: a.groupInfo(groupID), OpUser: a.opMember(op, groupID),
		InvitedUserList: a.members(groupID, invited), OperationTime: time.Now().UnixMilli()}
	tips.GroupMemberVersionID, tips.GroupMemberVersion = listVersion("groupMember", groupID, sortedCopy(members))
	a.notify(core.GroupKey(groupID), op.user, groupID, wire.ContentMemberInvited, tips)
}

// notifyFriendsImported announces each imported friend as an approved
// application, from the friend to the owner (internal/rpc/relation
// ImportFriends, FriendNotificationSender FriendApplicationAgreedNotification).
func (a *API) notifyFriendsImported(owner string, friends []string) {
	if !a.Notifications {
		return
	}
	all, _ := a.Core.Friends(owner)
	vid, v := listVersion("friend", owner, all)
	for _, f := range friends {
		tips := &wire.FriendApplicationApprovedTips{FromToUserID: &wire.FromToUserID{FromUserID: owner, ToUserID: f},
			FriendVersion: v, FriendVersionID: vid}
		a.notify(core.DirectKey(owner, f), f, owner, wire.ContentFriendApplicationApproved, tips)
	}
}

// opMember is the operator as a group member: the admin, who is none.
func (a *API) opMember(op caller, groupID string) *wire.GroupMemberFullInfo {
	u := a.meta.user(op.user)
	m := &wire.GroupMemberFullInfo{GroupID: groupID, UserID: op.user, Nickname: u.Nickname, FaceURL: u.FaceURL}
	if op.admin {
		m.AppMangerLevel = 2 // constant.AppAdmin
	}
	return m
}

func sortedCopy(ids []string) []string { return slices.Sorted(slices.Values(ids)) }
