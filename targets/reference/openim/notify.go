package openim

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// Notifications (FrontEnd.Notifications), each as open-im-server v3.8
// sends it (pkg/notification msg.go NotificationSender.send): a MsgData
// from the operator with msgFrom 200, the notification's content type, as
// content {"detail": <its tips as JSON>}, the options
// config.GetOptionsByNotification makes of its notification.yml entry and
// that entry's offline push title, desc and ext; a group's goes to the
// group (sessionType 3), a friend's to the pair (sessionType 1).
//
// The three this server sends are those its routes cause: groupCreated
// (1501), memberInvited (1509) and friendApplicationApproved (1201, one
// per imported friend), all three in notification.yml (v3.8.3 to
// v3.8.3-patch.16) with isSendMsg: true, reliabilityLevel: 1 (pushed only,
// not kept as a notification) and unreadCount: false; offline push is on
// for friendApplicationApproved only. msgtransfer makes two messages of
// such a notification (categorizeMessageLists): a copy stored in the chat
// conversation as a message, which takes a seq and moves its sender's
// has-read seq, with options {offlinePush, unreadCount} of the entry, and
// the notification itself in the n_ conversation, unstored (seq 0). Here
// the core stores the copy as a system message (never faulted), and its
// push frames carry both (push.go). A group notification names the member
// list's version after the change, as the real one does (setVersion), in
// this server's versions (api_sync.go listVersion); a friend's names none.

// The notification.yml keys of the notifications this server sends.
const (
	NoteGroupCreated   = "groupCreated"
	NoteMemberInvited  = "memberInvited"
	NoteFriendApproved = "friendApplicationApproved"
)

// noteConf is a notification's notification.yml entry, as released.
type noteConf struct {
	key              string
	offlinePush      bool
	title, desc, ext string
}

var noteConfs = map[int32]noteConf{
	wire.ContentGroupCreated:  {NoteGroupCreated, false, "create group title", "create group desc", "create group ext"},
	wire.ContentMemberInvited: {NoteMemberInvited, false, "memberInvited title", "memberInvited desc", "memberInvited ext"},
	wire.ContentFriendApplicationApproved: {NoteFriendApproved, true, "Someone applies to add your friend application",
		"Someone applies to add your friend application", "Someone applies to add your friend application"},
}

// ParseUnread reads a comma-separated list of the notification.yml keys
// whose unreadCount is to be true (FrontEnd.UnreadNotifications); "" is
// none, as released.
func ParseUnread(list string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, k := range strings.Split(list, ",") {
		switch k = strings.TrimSpace(k); k {
		case "":
		case NoteGroupCreated, NoteMemberInvited, NoteFriendApproved:
			out[k] = true
		default:
			return nil, fmt.Errorf("notification %q: want %s, %s or %s", k, NoteGroupCreated, NoteMemberInvited, NoteFriendApproved)
		}
	}
	return out, nil
}

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

// notify sends one notification from sendID for the request opID; failures
// are only logged, as the real sender's are.
func (a *API) notify(k core.ConvKey, sendID, recvID string, contentType int32, tips any, opID string) {
	detail, err := json.Marshal(tips)
	if err != nil {
		return
	}
	content, err := json.Marshal(wire.NotificationElem{Detail: string(detail)})
	if err != nil {
		return
	}
	conf := noteConfs[contentType]
	now := time.Now()
	md := &pb.MsgData{SendID: sendID, RecvID: recvID, MsgFrom: wire.MsgFromSystem, ContentType: contentType,
		Content: content, CreateTime: now.UnixMilli(), ClientMsgID: msgIDByMD5(sendID), ServerMsgID: serverMsgID(sendID, now),
		Options:         map[string]bool{"offlinePush": conf.offlinePush, "unreadCount": a.UnreadNotifications[conf.key]},
		OfflinePushInfo: &pb.OfflinePushInfo{Title: conf.title, Desc: conf.desc, Ex: conf.ext}}
	if k.Kind == core.Group {
		md.SessionType, md.GroupID = wire.SessionGroup, k.ID
	} else {
		md.SessionType = wire.SessionSingle
	}
	// The stored copy keeps its options and offline push info (a user's
	// message keeps neither here: toPayload).
	payload, err := proto.Marshal(md)
	if err != nil {
		return
	}
	m, err := a.Core.Send(&core.Message{Conv: k, Sender: sendID, ClientID: md.ClientMsgID, Payload: payload, System: true, RequestID: opID})
	if err == nil {
		a.reads.sent(sendID, convID(k), m.Seq)
		if a.Metrics != nil {
			a.Metrics.notifications.WithLabelValues(strconv.Itoa(int(contentType))).Inc()
		}
	}
}

// notifyGroupCreated sends GroupCreatedNotification (1501) to the new group
// from its creator (internal/rpc/group group.go CreateGroup,
// notification.go GroupCreatedNotification). Its member list is the
// members in joining order up to the creator (CreateGroup stops there):
// the owner alone when the owner created it, all of them when the admin
// did.
func (a *API) notifyGroupCreated(op caller, g *wire.GroupInfo, opID string) {
	if !a.Notifications || g == nil {
		return
	}
	members, err := a.Core.Members(g.GroupID)
	if err != nil {
		return
	}
	upTo := members
	if i := slices.Index(members, op.user); i >= 0 {
		upTo = members[:i+1]
	}
	list := a.members(g.GroupID, upTo)
	tips := &wire.GroupCreatedTips{Group: g, OpUser: a.opMember(op, g.GroupID), MemberList: list,
		OperationTime: g.CreateTime, GroupOwnerUser: list[0]}
	tips.GroupMemberVersionID, tips.GroupMemberVersion = listVersion("groupMember", g.GroupID, sortedCopy(members))
	a.notify(core.GroupKey(g.GroupID), op.user, g.GroupID, wire.ContentGroupCreated, tips, opID)
}

// notifyMembersInvited sends MemberInvitedNotification (1509) to the group
// from the inviter (internal/rpc/group notification.go
// GroupApplicationAgreeMemberEnterNotification): the inviter is named as
// such when a member invited, not when the admin did.
func (a *API) notifyMembersInvited(op caller, groupID string, invited []string, opID string) {
	if !a.Notifications || len(invited) == 0 {
		return
	}
	members, err := a.Core.Members(groupID)
	if err != nil {
		return
	}
	tips := &wire.MemberInvitedTips{Group: a.groupInfo(groupID), OpUser: a.opMember(op, groupID),
		InvitedUserList: a.members(groupID, invited)}
	tips.GroupMemberVersionID, tips.GroupMemberVersion = listVersion("groupMember", groupID, sortedCopy(members))
	if !op.admin {
		tips.InviterUser = tips.OpUser
	}
	a.notify(core.GroupKey(groupID), op.user, groupID, wire.ContentMemberInvited, tips, opID)
}

// notifyFriendsImported announces each imported friend as an approved
// application, from the friend to the owner (internal/rpc/relation
// friend.go ImportFriends, notification.go
// FriendApplicationAgreedNotification): fromUserID the owner, toUserID the
// friend, no request and no version.
func (a *API) notifyFriendsImported(owner string, friends []string, opID string) {
	if !a.Notifications {
		return
	}
	for _, f := range friends {
		tips := &wire.FriendApplicationApprovedTips{FromToUserID: &wire.FromToUserID{FromUserID: owner, ToUserID: f}}
		a.notify(core.DirectKey(owner, f), f, owner, wire.ContentFriendApplicationApproved, tips, opID)
	}
}

// opMember is the operator as a group member (fillOpUserByUserID): the
// admin as a group admin with the app admin level, a user by its member
// record.
func (a *API) opMember(op caller, groupID string) *wire.GroupMemberFullInfo {
	if !op.admin {
		if m := a.members(groupID, []string{op.user}); len(m) == 1 {
			return m[0]
		}
	}
	u := a.meta.user(op.user)
	m := &wire.GroupMemberFullInfo{GroupID: groupID, UserID: op.user, Nickname: u.Nickname, FaceURL: u.FaceURL}
	if op.admin {
		m.RoleLevel, m.AppMangerLevel = wire.RoleAdmin, 2 // constant.GroupAdmin, constant.AppAdmin
	} else {
		m.OperatorUserID = op.user
	}
	return m
}

func sortedCopy(ids []string) []string { return slices.Sorted(slices.Values(ids)) }
