package openim_test

// The three ways the target once parted from open-im-server v3.8 that
// OpenIM's own integration_test stumbled on: the 1201 notification per
// imported friend, the push's operationID and groups an owner creates and
// invites to with its own token.

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/openim"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// online dials user and waits until the server has it online: the answer
// to a request comes after the session is attached.
func online(t *testing.T, s *server, user string, env wire.Envelope) *client {
	t.Helper()
	c := dial(t, s, user, s.userToken(t, user, 2), 2, env)
	c.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: user})
	return c
}

// pushOf decodes a 2001 frame, checking that it carries op.
func pushOf(t *testing.T, c *client, op string) *pb.PushMessages {
	t.Helper()
	r := c.push()
	var p pb.PushMessages
	if r.ReqIdentifier != wire.PushMsg || r.MsgIncr != "" || r.OperationID != op || proto.Unmarshal(r.Data, &p) != nil {
		t.Fatalf("%s: frame %d msgIncr %q operationID %q, want a 2001 with operationID %q", c.user, r.ReqIdentifier, r.MsgIncr, r.OperationID, op)
	}
	return &p
}

// only returns the one message of a push's msgs or notificationMsgs under
// conv, failing if the push holds anything else.
func only(t *testing.T, p *pb.PushMessages, notification bool, conv string) *pb.MsgData {
	t.Helper()
	in, other := p.Msgs, p.NotificationMsgs
	if notification {
		in, other = other, in
	}
	if len(other) != 0 || len(in) != 1 || len(in[conv].GetMsgs()) != 1 {
		t.Fatalf("push %+v: want one message in %s", p, conv)
	}
	return in[conv].Msgs[0]
}

// quiet checks that nothing was pushed to c before a request made now is
// answered (frames come in the order they were queued).
func quiet(t *testing.T, c *client) {
	t.Helper()
	c.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: c.user})
	if len(c.held) != 0 {
		t.Fatalf("%s got %d unexpected frames, the first %d", c.user, len(c.held), c.held[0].ReqIdentifier)
	}
}

func detailOf(t *testing.T, md *pb.MsgData) string {
	t.Helper()
	var elem wire.NotificationElem
	if err := json.Unmarshal(md.Content, &elem); err != nil {
		t.Fatalf("content %q: %v", md.Content, err)
	}
	return elem.Detail
}

// Importing friends sends FriendApplicationApprovedNotification (1201) per
// friend, from the friend to the owner, as open-im-server's ImportFriends
// does: to both users' connections a stored copy in si_ (options of
// notification.yml's friendApplicationApproved: offline push on, unread
// count as configured) then the notification in n_ (seq 0), both with the
// import's operationID; nobody else gets anything. The friend's has-read
// seq moves to its copy, the owner's does not.
func TestFriendImportNotifiesEachFriend(t *testing.T) {
	for _, unread := range []bool{false, true} {
		s := startWith(t, func(f *openim.FrontEnd) {
			f.Notifications = true
			if unread {
				f.UnreadNotifications = map[string]bool{openim.NoteFriendApproved: true}
			}
		})
		s.ok(t, "/user/user_register", s.admin, map[string]any{"users": []map[string]any{{"userID": "a"}, {"userID": "b"}, {"userID": "c"}, {"userID": "d"}}}, nil)
		conns := map[string]*client{}
		for _, u := range []string{"a", "b", "c", "d"} {
			conns[u] = online(t, s, u, wire.Gob)
		}
		if status, env := s.callOp(t, "/friend/import_friend", s.admin, "import-op", map[string]any{"ownerUserID": "a", "friendUserIDs": []string{"b", "c"}}); status != 200 || env["errCode"].(float64) != 0 {
			t.Fatalf("import_friend: %d %v", status, env)
		}
		check := func(c *client, friend string) {
			t.Helper()
			conv := wire.SingleConversationID("a", friend)
			stored := only(t, pushOf(t, c, "import-op"), false, conv)
			note := only(t, pushOf(t, c, "import-op"), true, "n_"+conv[len("si_"):])
			if stored.SendID != friend || stored.RecvID != "a" || stored.GroupID != "" || stored.SessionType != wire.SessionSingle ||
				stored.MsgFrom != wire.MsgFromSystem || stored.ContentType != wire.ContentFriendApplicationApproved || stored.Seq != 1 ||
				len(stored.ServerMsgID) != 32 || len(stored.ClientMsgID) != 32 || stored.SendTime == 0 || stored.CreateTime == 0 {
				t.Fatalf("%s: stored copy %+v", c.user, stored)
			}
			if want := map[string]bool{"offlinePush": true, "unreadCount": unread}; !maps.Equal(stored.Options, want) {
				t.Fatalf("%s: stored copy's options %v, want %v", c.user, stored.Options, want)
			}
			if p := stored.OfflinePushInfo; p.GetTitle() != "Someone applies to add your friend application" || p.GetDesc() != p.GetTitle() || p.GetEx() != p.GetTitle() {
				t.Fatalf("%s: offline push info %+v", c.user, p)
			}
			want := `{"fromToUserID":{"fromUserID":"a","toUserID":"` + friend + `"},"handleMsg":"","friendVersion":0,"friendVersionID":"","request":null}`
			if d := detailOf(t, stored); d != want {
				t.Fatalf("%s: detail %s, want %s", c.user, d, want)
			}
			if note.Seq != 0 || note.ClientMsgID != stored.ClientMsgID || note.ServerMsgID != stored.ServerMsgID ||
				note.ContentType != stored.ContentType || note.SendID != friend || !proto.Equal(note.OfflinePushInfo, stored.OfflinePushInfo) ||
				string(note.Content) != string(stored.Content) {
				t.Fatalf("%s: notification %+v of %+v", c.user, note, stored)
			}
			if o := note.Options; o["isNotNotification"] || !o["isSendMsg"] || o["history"] || o["persistent"] || o["unreadCount"] ||
				o["offlinePush"] || !o["senderSync"] || len(o) != 11 {
				t.Fatalf("%s: notification's options %v", c.user, o)
			}
		}
		check(conns["a"], "b")
		check(conns["a"], "c")
		check(conns["b"], "b")
		check(conns["c"], "c")
		quiet(t, conns["a"])
		quiet(t, conns["d"])

		var seqs pb.GetConversationsHasReadAndMaxSeqResp
		ok(t, conns["a"].req(wire.ReqGetConvMaxReadSeq, &pb.GetConversationsHasReadAndMaxSeqReq{UserID: "a"}), &seqs)
		if len(seqs.Seqs) != 2 || seqs.Seqs["si_a_b"].GetMaxSeq() != 1 || seqs.Seqs["si_a_b"].GetHasReadSeq() != 0 || seqs.Seqs["si_a_c"].GetHasReadSeq() != 0 {
			t.Fatalf("owner's seqs %+v", &seqs)
		}
		ok(t, conns["b"].req(wire.ReqGetConvMaxReadSeq, &pb.GetConversationsHasReadAndMaxSeqReq{UserID: "b"}), &seqs)
		if len(seqs.Seqs) != 1 || seqs.Seqs["si_a_b"].GetMaxSeq() != 1 || seqs.Seqs["si_a_b"].GetHasReadSeq() != 1 {
			t.Fatalf("friend's seqs %+v", &seqs)
		}
		var ids struct{ UserIDs []string }
		s.ok(t, "/friend/get_full_friend_user_ids", s.userToken(t, "a", 3), map[string]any{"userID": "a"}, &ids)
		if !slices.Equal(ids.UserIDs, []string{"b", "c"}) {
			t.Fatalf("a's friends %v", ids.UserIDs)
		}
	}
}

// With notifications off, an import sends nothing and leaves no messages.
func TestNotificationsOff(t *testing.T) {
	s := start(t, false)
	s.ok(t, "/user/user_register", s.admin, map[string]any{"users": []map[string]any{{"userID": "a"}, {"userID": "b"}}}, nil)
	a := online(t, s, "a", wire.Gob)
	s.ok(t, "/friend/import_friend", s.admin, map[string]any{"ownerUserID": "a", "friendUserIDs": []string{"b"}}, nil)
	s.ok(t, "/group/create_group", s.admin, map[string]any{"ownerUserID": "a", "memberUserIDs": []string{"b"},
		"groupInfo": map[string]any{"groupID": "g", "groupType": 2}}, nil)
	quiet(t, a)
	var newest pb.GetMaxSeqResp
	ok(t, a.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: "a"}), &newest)
	if len(newest.MaxSeqs) != 0 {
		t.Fatalf("messages without notifications: %v", newest.MaxSeqs)
	}
}

// Every 2001 frame carries the operationID of the request that sent the
// message (msggateway client.go PushMessage takes its context's): the
// sender's 1003, in both envelopes, to the receiver and to the sender's
// own copy, and the REST call's header for /msg/send_msg.
func TestPushCarriesTheSendersOperationID(t *testing.T) {
	for _, env := range []wire.Envelope{wire.Gob, wire.JSON} {
		s := start(t, false)
		s.world(t)
		a := online(t, s, "a", env)
		b := online(t, s, "b", env)
		for i, to := range []struct{ group, recv, conv string }{{"g", "", "sg_g"}, {"", "b", "si_a_b"}} {
			r := a.req(wire.ReqSendMsg, text("a", to.group, to.recv, string(rune('x'+i))))
			ok(t, r, nil)
			if r.OperationID == "" {
				t.Fatal("the send's reply carries no operationID")
			}
			for _, c := range []*client{b, a} {
				if m := only(t, pushOf(t, c, r.OperationID), false, to.conv); m.SendID != "a" {
					t.Fatalf("%s: push %+v", c.user, m)
				}
			}
		}
		if status, env := s.callOp(t, "/msg/send_msg", s.admin, "rest-op", map[string]any{"sendID": "a", "recvID": "b", "sessionType": 1,
			"contentType": 101, "content": map[string]any{"content": "hi"}}); status != 200 || env["errCode"].(float64) != 0 {
			t.Fatalf("send_msg: %d %v", status, env)
		}
		only(t, pushOf(t, b, "rest-op"), false, "si_a_b")
	}
}

// A user creates a group it owns with its own token, and a member invites
// with its own, as open-im-server's CreateGroup (CheckAccessV3 on the
// owner) and InviteUserToGroup (the inviter must be a member; in a group
// that needs verification for all, an ordinary member's invitation only
// files applications) allow; a non-member can do neither. The group's
// notifications come from the user who acted.
func TestOwnerCreatesGroupAndInvites(t *testing.T) {
	s := start(t, true)
	users := []map[string]any{}
	for _, u := range []string{"o", "m", "x", "y", "z", "w"} {
		users = append(users, map[string]any{"userID": u, "nickname": "N" + u})
	}
	s.ok(t, "/user/user_register", s.admin, map[string]any{"users": users}, nil)
	tok := map[string]string{}
	for _, u := range []string{"o", "m", "x"} {
		tok[u] = s.userToken(t, u, 2)
	}
	o := dial(t, s, "o", tok["o"], 2, wire.Gob)
	o.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: "o"}) // online before anything is pushed
	group := func(id string, verification int) map[string]any {
		return map[string]any{"ownerUserID": "o", "memberUserIDs": []string{"m"},
			"groupInfo": map[string]any{"groupID": id, "groupName": id, "groupType": 2, "needVerification": verification}}
	}
	members := func(id string) []string {
		var ids struct{ UserIDs []string }
		s.ok(t, "/group/get_full_group_member_user_ids", s.admin, map[string]any{"groupID": id}, &ids)
		return ids.UserIDs
	}

	// Not for someone else, nor without an owner.
	s.refused(t, "/group/create_group", tok["x"], group("g1", 2), 1002)
	s.refused(t, "/group/create_group", tok["o"], map[string]any{"memberUserIDs": []string{"m"}, "groupInfo": map[string]any{"groupType": 2}}, 1001)
	var created struct{ GroupInfo wire.GroupInfo }
	if status, env := s.callOp(t, "/group/create_group", tok["o"], "create-op", group("g1", 2)); status != 200 || env["errCode"].(float64) != 0 {
		t.Fatalf("owner's create_group: %d %v", status, env)
	} else {
		b, _ := json.Marshal(env["data"])
		json.Unmarshal(b, &created)
	}
	if g := created.GroupInfo; g.GroupID != "g1" || g.OwnerUserID != "o" || g.CreatorUserID != "o" || g.MemberCount != 2 {
		t.Fatalf("created %+v", g)
	}
	stored := only(t, pushOf(t, o, "create-op"), false, "sg_g1")
	only(t, pushOf(t, o, "create-op"), true, "n_g1")
	var tips wire.GroupCreatedTips
	if err := json.Unmarshal([]byte(detailOf(t, stored)), &tips); err != nil {
		t.Fatal(err)
	}
	if stored.SendID != "o" || stored.GroupID != "g1" || stored.ContentType != wire.ContentGroupCreated || stored.Seq != 1 ||
		!maps.Equal(stored.Options, map[string]bool{"offlinePush": false, "unreadCount": false}) ||
		tips.OpUser == nil || tips.OpUser.UserID != "o" || tips.OpUser.RoleLevel != wire.RoleOwner || tips.OpUser.AppMangerLevel != 0 ||
		len(tips.MemberList) != 1 || tips.MemberList[0].UserID != "o" || tips.GroupOwnerUser.UserID != "o" || tips.Group.GroupID != "g1" {
		t.Fatalf("1501 %+v: %+v", stored, tips)
	}

	// A non-member may not invite (the member lookup fails: 1004); the
	// owner may, and so may an ordinary member where no verification is
	// needed; unknown users and empty lists are refused.
	s.refused(t, "/group/invite_user_to_group", tok["x"], map[string]any{"groupID": "g1", "invitedUserIDs": []string{"y"}}, 1004)
	s.refused(t, "/group/invite_user_to_group", tok["o"], map[string]any{"groupID": "g1", "invitedUserIDs": []string{"nobody"}}, 1004)
	s.refused(t, "/group/invite_user_to_group", tok["o"], map[string]any{"groupID": "g1", "invitedUserIDs": []string{}}, 1001)
	s.refused(t, "/group/invite_user_to_group", tok["o"], map[string]any{"groupID": "g1", "invitedUserIDs": []string{"y", "y"}}, 1001)
	if status, env := s.callOp(t, "/group/invite_user_to_group", tok["o"], "invite-op", map[string]any{"groupID": "g1", "invitedUserIDs": []string{"y"}}); status != 200 || env["errCode"].(float64) != 0 {
		t.Fatalf("owner's invite: %d %v", status, env)
	}
	invited := only(t, pushOf(t, o, "invite-op"), false, "sg_g1")
	only(t, pushOf(t, o, "invite-op"), true, "n_g1")
	var itips wire.MemberInvitedTips
	if err := json.Unmarshal([]byte(detailOf(t, invited)), &itips); err != nil {
		t.Fatal(err)
	}
	if invited.SendID != "o" || invited.ContentType != wire.ContentMemberInvited || invited.Seq != 2 || itips.OpUser == nil || itips.OpUser.UserID != "o" ||
		itips.InviterUser == nil || itips.InviterUser.UserID != "o" || len(itips.InvitedUserList) != 1 || itips.InvitedUserList[0].UserID != "y" || itips.Group.MemberCount != 3 {
		t.Fatalf("1509 %+v: %+v", invited, itips)
	}
	s.ok(t, "/group/invite_user_to_group", tok["m"], map[string]any{"groupID": "g1", "invitedUserIDs": []string{"z"}}, nil)
	if got := members("g1"); !slices.Equal(got, []string{"m", "o", "y", "z"}) {
		t.Fatalf("g1's members %v", got)
	}

	// Where every join needs verification, an ordinary member's invitation
	// joins nobody; the owner's does.
	s.ok(t, "/group/create_group", tok["o"], group("g2", 1), nil)
	s.ok(t, "/group/invite_user_to_group", tok["m"], map[string]any{"groupID": "g2", "invitedUserIDs": []string{"w"}}, nil)
	if got := members("g2"); !slices.Equal(got, []string{"m", "o"}) {
		t.Fatalf("g2 after a member's invitation: %v", got)
	}
	s.ok(t, "/group/invite_user_to_group", tok["o"], map[string]any{"groupID": "g2", "invitedUserIDs": []string{"w"}}, nil)
	if got := members("g2"); !slices.Equal(got, []string{"m", "o", "w"}) {
		t.Fatalf("g2 after the owner's invitation: %v", got)
	}
}
