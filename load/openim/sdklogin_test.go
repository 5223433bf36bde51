package openim_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/openim"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// The requests openim-sdk-core v3.8 makes at login, written down from its
// public source (github.com/openimsdk/openim-sdk-core), as the fixture the
// SDK-faithful login (sdklogin.go) is checked against. The sources:
//
//	[conn]   internal/interaction/long_conn_mgr.go reConn: the login URL;
//	         writeConnFirstSubMsg sends 2005 only for users the app had
//	         subscribed to (none at a login of a fresh SDK instance).
//	[msg]    internal/interaction/msg_sync.go doConnected: 1001 (GetMaxSeqReq)
//	         as soon as connected, then compareSeqsAndBatchSync at
//	         connectPullNums = 1: 1002 of every conversation whose newest seq
//	         is past the one held, one SeqRange each (pullMsgBySeqRange),
//	         SplitPullMsgNum = 100 messages a request; on a fresh install
//	         (loadSeq: no conversation, not installed) without notification
//	         conversations, up to pullMsgGoroutineLimit = 10 at once
//	         (syncAndTriggerReinstallMsgs), later one after the other
//	         (syncAndTriggerMsgs).
//	[flag]   internal/conversation_msg/notification.go syncFlag: a fresh
//	         install's AppDataSyncStart runs SyncAllJoinedGroupsAndMembers and
//	         IncrSyncFriends at once and waits, then IncrSyncConversations, then
//	         SyncAllConversationHashReadSeqs, then the seven lists below at
//	         once; a later login's MsgSyncBegin runs syncData:
//	         SyncAllConversationHashReadSeqs, then the seven lists and the
//	         three incremental syncs at once (runSyncFunctions).
//	[seqs]   internal/conversation_msg (sync.go) SyncAllConversationHashReadSeqs:
//	         1006 {userID}; conversations it names that are not held are
//	         fetched (/conversation/get_conversations) and named
//	         (batchAddFaceURLAndName: /user/get_users_info, /group/get_groups_info).
//	[incr]   internal/incrversion/option.go VersionSynchronizer.Sync: nothing
//	         more unless the answer is full or lists a change; full: the
//	         FullSyncer, then the FullID call.
//	[group]  internal/group/full_sync.go SyncAllJoinedGroupsAndMembers;
//	         internal/group/sync2.go IncrSyncJoinGroup (full:
//	         get_joined_group_list, get_full_join_group_ids) and
//	         IncrSyncJoinGroupMember → IncrSyncGroupAndMember
//	         (get_incremental_group_members_batch, protocol constant
//	         MaxSyncPullNumber = 500 groups a call; full:
//	         get_group_member_list, get_full_group_member_user_ids);
//	         internal/group/group.go initSyncer: pages of 100.
//	[friend] internal/relation/sync2.go IncrSyncFriends (full: get_friend_list,
//	         get_full_friend_user_ids); internal/relation/relation.go
//	         friendSyncer: pages of 100.
//	[conv]   internal/conversation_msg/sync2.go IncrSyncConversations (full:
//	         into an empty table page by page, get_owner_conversation, else
//	         get_all_conversations; then get_full_conversation_ids);
//	         conversation_msg.go conversationSyncer: pages of 300.
//	[lists]  user SyncLoginUserInfo (get_users_info), relation SyncAllBlackList,
//	         SyncAllFriendApplication, SyncAllSelfFriendApplication, group
//	         SyncAllAdminGroupApplication, SyncAllSelfGroupApplication, user
//	         SyncAllCommand.
//	[page]   internal/util/post.go GetPageAll (50 a page when none is given)
//	         and pkg/network FetchAndInsertPagedData: from page 1 until a page
//	         comes back short.
//	[id]     pkg/utils/utils.go GetMsgID: md5(time, sendID, random).
//	[2004]   SetAppBackgroundStatus sends 2004 only when the app calls it;
//	         2003 only at logout: neither at login.
type step struct {
	req   string   // a WebSocket request identifier or a REST route
	times int      // how many
	after []string // what every one of them comes after, all of it
	src   string
}

// counts are what a user's login depends on.
type counts struct {
	groups    int   // joined
	members   []int // of each joined group
	friends   int
	convs     int // conversation records: joined groups and peers messaged
	withMsgs  int // conversations with messages
	newInConv int // conversations with messages since the last login (a later login)
}

// pages is how many calls a list of n takes at size a page: from page 1 until
// a short page, so a full last page costs one more.
func pages(n, size int) int { return n/size + 1 }

func ceilDiv(n, d int) int { return (n + d - 1) / d }

var lists = []string{"/user/get_users_info", "/friend/get_black_list", "/friend/get_friend_apply_list",
	"/friend/get_self_friend_apply_list", "/group/get_recv_group_applicationList",
	"/group/get_user_req_group_applicationList", "/user/process_user_command_get_all"}

// freshLogin is the first login of a fresh SDK instance ([flag] AppDataSyncStart).
func freshLogin(k counts) []step {
	memberPages := 0
	for _, m := range k.members {
		memberPages += pages(m, 100)
	}
	groupChain := []string{"/group/get_incremental_join_groups", "/group/get_joined_group_list",
		"/group/get_full_join_group_ids", "/group/get_incremental_group_members_batch",
		"/group/get_group_member_list", "/group/get_full_group_member_user_ids"}
	friendChain := []string{"/friend/get_incremental_friends", "/friend/get_friend_list", "/friend/get_full_friend_user_ids"}
	steps := []step{
		{"1001", 1, nil, "[msg] doConnected, first of all"},
		{"1002", ceilDiv(k.withMsgs, 100), []string{"1001"}, "[msg] connectPullNums 1, 100 a request"},
		{groupChain[0], 1, nil, "[flag] [group] IncrSyncJoinGroup"},
		{groupChain[1], pages(k.groups, 100), groupChain[:1], "[incr] full [group] groupSyncer"},
		{groupChain[2], 1, groupChain[1:2], "[incr] FullID"},
		{groupChain[3], ceilDiv(k.groups, 500), groupChain[2:3], "[group] IncrSyncJoinGroupMember"},
		{groupChain[4], memberPages, groupChain[3:4], "[incr] full [group] groupMemberSyncer"},
		{groupChain[5], k.groups, groupChain[3:4], "[incr] FullID"},
		{friendChain[0], 1, nil, "[flag] [friend] IncrSyncFriends"},
		{friendChain[1], pages(k.friends, 100), friendChain[:1], "[incr] full [friend] friendSyncer"},
		{friendChain[2], 1, friendChain[1:2], "[incr] FullID"},
		{"/conversation/get_incremental_conversations", 1, append(groupChain, friendChain...), "[flag] asyncWait, then [conv]"},
		{"/conversation/get_owner_conversation", pages(k.convs, 300), []string{"/conversation/get_incremental_conversations"}, "[incr] full [conv] into an empty table"},
		{"/conversation/get_full_conversation_ids", 1, []string{"/conversation/get_owner_conversation"}, "[incr] FullID"},
		{"1006", 1, []string{"/conversation/get_full_conversation_ids"}, "[flag] syncWait, then [seqs]; every conversation is held"},
	}
	for _, l := range lists {
		steps = append(steps, step{l, 1, []string{"1006"}, "[flag] asyncNoWait [lists] [page]"})
	}
	return steps
}

// laterLogin is a login of the same SDK instance after the first ([flag]
// MsgSyncBegin, syncData): every list's version is the server's.
func laterLogin(k counts) []step {
	steps := []step{
		{"1001", 1, nil, "[msg] doConnected"},
		{"1002", ceilDiv(k.newInConv, 100), []string{"1001"}, "[msg] ranges past the seqs held"},
		{"1006", 1, nil, "[flag] syncData, syncWait [seqs]"},
		{"/group/get_incremental_join_groups", 1, []string{"1006"}, "[group], [incr] unchanged"},
		{"/group/get_incremental_group_members_batch", ceilDiv(k.groups, 500), []string{"/group/get_incremental_join_groups"}, "[group] the groups held, [incr] unchanged"},
		{"/friend/get_incremental_friends", 1, []string{"1006"}, "[friend], [incr] unchanged"},
		{"/conversation/get_incremental_conversations", 1, []string{"1006"}, "[conv], [incr] unchanged"},
	}
	for _, l := range lists {
		steps = append(steps, step{l, 1, []string{"1006"}, "[flag] asyncNoWait [lists] [page]"})
	}
	return steps
}

// checkSequence compares what was sent with the fixture: the same requests
// as often, each after what it must follow.
func checkSequence(t *testing.T, name string, got []string, want []step, first string) {
	t.Helper()
	have := map[string]int{}
	for _, r := range got {
		have[r]++
	}
	for _, s := range want {
		if have[s.req] != s.times {
			t.Errorf("%s: %s sent %d times, the SDK sends it %d (%s)", name, s.req, have[s.req], s.times, s.src)
		}
		delete(have, s.req)
	}
	for r, n := range have {
		t.Errorf("%s: %s sent %d times, the SDK does not send it", name, r, n)
	}
	if first != "" && (len(got) == 0 || got[0] != first) {
		t.Errorf("%s: the first request is not %s: %v", name, first, got)
	}
	firstAt := func(r string) int { return slices.Index(got, r) }
	lastAt := func(r string) int {
		for i := len(got) - 1; i >= 0; i-- {
			if got[i] == r {
				return i
			}
		}
		return -1
	}
	for _, s := range want {
		i := firstAt(s.req)
		for _, a := range s.after {
			if j := lastAt(a); i >= 0 && j > i {
				t.Errorf("%s: %s before %s (%s)", name, s.req, a, s.src)
			}
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("%s sent: %s", name, strings.Join(got, " "))
	}
}

type tracer struct {
	mu   sync.Mutex
	user uint32
	got  []string
}

func (tr *tracer) record(u uint32, req string) {
	tr.mu.Lock()
	if u == tr.user {
		tr.got = append(tr.got, req)
	}
	tr.mu.Unlock()
}

func (tr *tracer) take() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	got := tr.got
	tr.got = nil
	return got
}

// A late user's first login, and a later one after a message came, send
// what openim-sdk-core sends, in its order; what the login pulls is the
// newest message of each conversation, and the engine's sync then takes
// the login's 1001 and pulls one range per conversation a request.
func TestSDKLoginSendsTheSDKsRequests(t *testing.T) {
	tg := reftest.Start(t, core.Faults{})
	// 120 users: one large group of all (two pages of members), a super
	// user befriending everyone, groups of 3 made by the online users.
	p, err := plan.Integration{Name: "sdk", Users: 120, SuperUsers: 1, LargeGroups: 1, CommonGroups: 1,
		CommonGroupMembers: 3, LoginRatio: 0.5, SingleMessages: 1, GroupMessages: 1, Rate: 1000}.Build()
	if err != nil {
		t.Fatal(err)
	}
	light, err := openim.New(openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: tg.Secret, Gzip: true}, p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := light.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	// Everything planned is sent by light connections.
	senders := map[uint32]engine.Conn{}
	send := func(m plan.Msg) {
		t.Helper()
		c := senders[m.Sender]
		if c == nil {
			if c, err = light.Connect(ctx, m.Sender, newRecorder()); err != nil {
				t.Fatal(err)
			}
			senders[m.Sender] = c
		}
		done := make(chan error, 1)
		text := verify.AppendBody(nil, p.RunID, m.Sender, m.Conv, m.N, time.Now().UnixMicro(), 0)
		if err := c.Send(m, text, time.Now().UnixMilli(), func(err error) { done <- err }); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	withMsgs := map[uint32]int{}
	for m := range p.Schedule() {
		send(m)
		withMsgs[m.Conv]++
	}
	defer func() {
		for _, c := range senders {
			closeConn(t, c)
		}
	}()

	// The late user with the most to sync.
	var me uint32
	var k counts
	for u := range uint32(p.Users) {
		if p.Login[u] != plan.Late {
			continue
		}
		var c counts
		for _, g := range p.Groups {
			if slices.Contains(g.Members, u) {
				c.groups++
				c.members = append(c.members, len(g.Members))
			}
		}
		for _, f := range p.Friends {
			if f[0] == u || f[1] == u {
				c.friends++
			}
		}
		c.convs = c.groups
		for cv, n := range withMsgs {
			if !slices.Contains(p.Members(cv), u) {
				continue
			}
			c.withMsgs++
			if p.Convs[cv].Kind == plan.Single && n > 0 {
				c.convs++
			}
		}
		if c.withMsgs > k.withMsgs && c.friends > 0 && c.convs > c.groups {
			me, k = u, c
		}
	}
	if k.withMsgs == 0 || slices.Max(k.members) <= 100 {
		t.Fatalf("the plan has no late user to test with: %+v", k)
	}

	d, err := openim.New(openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: tg.Secret, Gzip: true, Login: openim.LoginSDK}, p)
	if err != nil {
		t.Fatal(err)
	}
	tr := &tracer{user: me}
	d.Trace(tr.record)
	rec := newRecorder()
	c, err := d.Connect(ctx, me, rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.(engine.LoginSyncer).LoginSync(ctx, false); err != nil {
		t.Fatal(err)
	}
	got := tr.take()
	checkSequence(t, "first login", got, freshLogin(k), "1001")
	if n := c.(engine.LoginCoster).Requests(); n != int64(len(got)) || c.(engine.LoginCoster).Dialed().IsZero() {
		t.Fatalf("the login counts %d requests, it sent %d", n, len(got))
	}
	// It pulled the newest message of each conversation, no more.
	maxes := make(chan map[uint32]uint64, 1)
	if err := c.MaxSeqs(func(m map[uint32]uint64, err error) { maxes <- m }); err != nil {
		t.Fatal(err)
	}
	newest := <-maxes
	if sent := tr.take(); len(sent) != 0 || len(newest) != k.withMsgs {
		t.Fatalf("the sync's max seqs: %d conversations, with %v sent; want the login's own %d", len(newest), sent, k.withMsgs)
	}
	rec.mu.Lock()
	pulled := rec.got
	rec.got = nil
	rec.mu.Unlock()
	if len(pulled) != k.withMsgs {
		t.Fatalf("the login pulled %d messages, want the newest of each of %d conversations", len(pulled), k.withMsgs)
	}
	for _, a := range pulled {
		if !a.Pulled || a.GapFill || a.Seq != newest[a.Conv] {
			t.Fatalf("pulled %+v, want conversation %d's newest, seq %d", a, a.Conv, newest[a.Conv])
		}
	}
	// The engine's sync pulls the rest one range per conversation a request:
	// a conversation missing two runs takes two.
	var cv uint32
	for c, s := range newest {
		if s >= 4 {
			cv = c
		}
	}
	if newest[cv] < 4 {
		t.Fatal("no conversation with 4 messages")
	}
	done := make(chan error, 1)
	if err := c.Pull(map[uint32][]uint64{cv: {1, 3}}, false, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if sent := tr.take(); !slices.Equal(sent, []string{"1002", "1002"}) {
		t.Fatalf("two runs of one conversation went as %v, want two requests", sent)
	}
	rec.mu.Lock()
	if len(rec.got) != 2 {
		t.Fatalf("pulled %d messages, want seqs 1 and 3", len(rec.got))
	}
	rec.mu.Unlock()
	closeConn(t, c)

	// A message in one conversation, then the user logs in again.
	for m := range p.Schedule() {
		if m.Conv == cv && m.Sender != me {
			m.N += 1000
			send(m)
			break
		}
	}
	k.newInConv = 1
	if c, err = d.Connect(ctx, me, newRecorder()); err != nil {
		t.Fatal(err)
	}
	defer closeConn(t, c)
	if err := c.(engine.LoginSyncer).LoginSync(ctx, true); err != nil {
		t.Fatal(err)
	}
	checkSequence(t, "later login", tr.take(), laterLogin(k), "")
}

// The SDK-faithful login's client message ids are the SDK's: 32 hex
// digits, a new one every time.
func TestSDKClientMsgIDsAreRandom(t *testing.T) {
	hex := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for i := range 1000 {
		id := openim.SDKMsgID("u1")
		if !hex.MatchString(id) || seen[id] {
			t.Fatalf("id %d: %q (repeated: %v)", i, id, seen[id])
		}
		seen[id] = true
	}
}

func TestLoginOptionIsChecked(t *testing.T) {
	for login, ok := range map[string]bool{"": true, "light": true, "sdk": true, "SDK": false, "full": false} {
		_, err := openim.New(openim.Config{APIURL: "http://127.0.0.1:1", WSURL: "ws://127.0.0.1:2", Secret: "s", Login: login}, tinyPlan(t))
		if (err == nil) != ok {
			t.Errorf("login %q: %v", login, err)
		}
	}
}
