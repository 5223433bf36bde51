package openim

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// The SDK-faithful login (Options.Login "sdk"): once the WebSocket is up, a
// user makes the requests openim-sdk-core v3.8 makes, in its order, with its
// own token. sdklogin_test.go writes that sequence down from the SDK's
// source, file by file, and checks it against what this sends.

// sdkVersion is the SDK version a login URL names.
const sdkVersion = "v3.8.3"

// The SDK's sizes.
const (
	sdkPullBatch     = 100 // msg_sync.go SplitPullMsgNum: conversations (at num 1) per login pull
	sdkPullParallel  = 10  // msg_sync.go pullMsgGoroutineLimit: login pulls at once on a fresh install
	sdkFriendPage    = 100 // relation.go, friendSyncer's full sync
	sdkGroupPage     = 100 // group.go, groupSyncer's and groupMemberSyncer's full syncs
	sdkConvPage      = 300 // conversation_msg.go, conversationSyncer's full sync
	sdkDefaultPage   = 50  // util/post.go GetPageAll, for lists asked with no page size
	sdkMemberBatch   = 500 // protocol constant MaxSyncPullNumber: groups per incremental members call
	sdkGroupParallel = 8   // group syncs at once per user (the SDK starts one goroutine per group)
	maxPages         = 10000
	userAPIConns     = 128 // REST connections of a process's users
)

// sdkOperationID is an operationID as the SDK makes them (pkg/utils
// OperationIDGenerator).
func sdkOperationID() string {
	return strconv.FormatInt(time.Now().UnixNano()+int64(rand.Uint32()), 10)
}

// sdkMsgID is a clientMsgID as the SDK makes them (pkg/utils GetMsgID): the
// md5 of the time, the sender and a random number.
func sdkMsgID(sendID string) string {
	now := time.Now().UnixNano()
	sum := md5.Sum([]byte(strconv.FormatInt(now, 10) + sendID + strconv.FormatInt(rand.Int64N(now), 10)))
	return hex.EncodeToString(sum[:])
}

type version struct {
	id string
	v  uint64
}

// local is what openim-sdk-core keeps of one user in its local database
// and consults at the next login: whether it was installed, the highest
// seq held per conversation (msg_sync.go syncedMaxSeqs), the version of
// each synced list (incrversion), the joined groups, friends and
// conversations.
type local struct {
	mu        sync.Mutex
	installed bool
	synced    map[string]int64
	versions  map[string]version // "friend", "group", "conversation", "member/<group>"
	groups    []string
	friends   map[string]bool
	convs     map[string]bool
}

func (d *Driver) localOf(u uint32) *local {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.local[u] == nil {
		d.local[u] = &local{synced: map[string]int64{}, versions: map[string]version{},
			friends: map[string]bool{}, convs: map[string]bool{}}
	}
	return d.local[u]
}

// held records the seqs that arrived: the SDK's synced seqs follow pushes
// and pulls.
func (l *local) held(d *Driver, arrivals []verify.Arrival) {
	if l == nil || len(arrivals) == 0 {
		return
	}
	l.mu.Lock()
	for _, a := range arrivals {
		if id := d.conv[a.Conv]; int64(a.Seq) > l.synced[id] {
			l.synced[id] = int64(a.Seq)
		}
	}
	l.mu.Unlock()
}

func (l *local) version(key string) version {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.versions[key]
}

func (l *local) setVersion(key, id string, v uint64) {
	l.mu.Lock()
	l.versions[key] = version{id, v}
	l.mu.Unlock()
}

// LoginSync implements engine.LoginSyncer. The light login does nothing
// here. The SDK-faithful one does what openim-sdk-core does once connected,
// two workers at once:
//   - the message syncer (msg_sync.go doConnected) asks for the newest seqs
//     (1001) and pulls the newest message of each conversation with new
//     ones (1002 at num 1, up to 100 conversations a request, one range
//     each: on a fresh install up to 10 requests at once, later one after
//     the other);
//   - the conversation worker (conversation_msg notification.go syncFlag)
//     syncs the user's data over REST with the user's token: on a fresh
//     install (AppDataSyncStart) joined groups with their members and
//     friends, then conversations, then has-read seqs (1006), then the
//     remaining lists; on a later login (MsgSyncBegin, syncData) has-read
//     seqs first, then every list at once; each list by version,
//     incrementally, or in full when the server says so.
//
// It returns once both are done, the lists the SDK does not wait for
// included: the SDK's AppDataSyncFinish or MsgSyncEnd, and then some.
func (c *conn) LoginSync(ctx context.Context, recover bool) error {
	l := c.local
	if l == nil {
		return nil
	}
	l.mu.Lock()
	fresh := !l.installed
	l.mu.Unlock()
	s := &sdkSync{c: c, l: l, ctx: ctx}

	type newest struct {
		m   map[string]int64
		err error
	}
	answer := make(chan newest, 1)
	if err := s.ws(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: c.uid}, func(r *wire.Resp, err error) {
		var resp pb.GetMaxSeqResp
		if err == nil {
			err = proto.Unmarshal(r.Data, &resp)
		}
		answer <- newest{resp.MaxSeqs, err}
	}); err != nil {
		return err
	}
	var convErr error
	worker := make(chan struct{})
	go func() {
		defer close(worker)
		if fresh {
			convErr = s.appDataSync()
		} else {
			convErr = s.syncData()
		}
	}()
	var msgErr error
	select {
	case a := <-answer:
		if msgErr = a.err; msgErr == nil {
			plan := c.planSeqs(a.m)
			c.maxes.Store(&plan)
			msgErr = s.pullNewest(a.m, fresh, recover)
		}
	case <-ctx.Done():
		msgErr = ctx.Err()
	}
	<-worker
	if ctx.Err() == nil {
		l.mu.Lock()
		l.installed = true
		l.mu.Unlock()
	}
	return errors.Join(msgErr, convErr)
}

// sdkSync is one SDK-faithful login under way.
type sdkSync struct {
	c   *conn
	l   *local
	ctx context.Context
}

// ws sends one request over the gateway; cb gets its answer, errCode
// checked.
func (s *sdkSync) ws(id int32, req proto.Message, cb func(*wire.Resp, error)) error {
	data, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	return s.c.request(id, data, func(r *wire.Resp, err error) {
		if err == nil {
			err = respError(r)
		}
		cb(r, err)
	})
}

// call sends one request over the gateway and waits for its answer.
func (s *sdkSync) call(id int32, req, resp proto.Message) error {
	done := make(chan error, 1)
	if err := s.ws(id, req, func(r *wire.Resp, err error) {
		if err == nil && resp != nil {
			err = proto.Unmarshal(r.Data, resp)
		}
		done <- err
	}); err != nil {
		return err
	}
	select {
	case err := <-done:
		return err
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// rest posts to one openim-api route with the user's token (internal/util
// post.go ApiPost).
func (s *sdkSync) rest(path string, body, out any) error {
	c := s.c
	c.reqs.Add(1)
	if t := c.d.trace; t != nil {
		t(c.user, path)
	}
	return c.d.userAPI.Call(s.ctx, path, c.token, body, out)
}

// pageAll asks for a list page by page from page 1 until a page comes back
// short (util/post.go GetPageAll, network FetchAndInsertPagedData).
func pageAll[T any](s *sdkSync, path string, size int32, req func(*wire.RequestPagination) any, n func(*T) int) error {
	for page := int32(1); page <= maxPages; page++ {
		var out T
		if err := s.rest(path, req(&wire.RequestPagination{PageNumber: page, ShowNumber: size}), &out); err != nil {
			return err
		}
		if n(&out) < int(size) {
			return nil
		}
	}
	return nil
}

// each runs fs at once and joins their errors (runSyncFunctions asyncWait,
// and asyncNoWait waited for here).
func (s *sdkSync) each(fs ...func() error) error {
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f() }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// appDataSync is a fresh install's sync (syncFlag AppDataSyncStart).
func (s *sdkSync) appDataSync() error {
	return errors.Join(
		s.each(s.groupsAndMembers, s.friends),
		s.conversations(),
		s.hasReadSeqs(),
		s.each(s.lists()...))
}

// syncData is a later login's (syncFlag MsgSyncBegin → syncData).
func (s *sdkSync) syncData() error {
	return errors.Join(s.hasReadSeqs(), s.each(append(s.lists(), s.groupsAndMembers, s.friends, s.conversations)...))
}

// lists are the lists synced whole at every login: the user's own info,
// blacklist, friend and group applications, commands.
func (s *sdkSync) lists() []func() error {
	uid := s.c.uid
	userPage := func(p *wire.RequestPagination) any { return wire.UserPageReq{UserID: uid, Pagination: p} }
	return []func() error{
		func() error { // user.SyncLoginUserInfo
			return s.rest("/user/get_users_info", wire.UsersInfoReq{UserIDs: []string{uid}}, nil)
		},
		func() error { // relation SyncAllBlackList
			return pageAll(s, "/friend/get_black_list", sdkDefaultPage, userPage, func(r *wire.BlacksResp) int { return len(r.Blacks) })
		},
		func() error { // relation SyncAllFriendApplication
			return pageAll(s, "/friend/get_friend_apply_list", sdkDefaultPage, userPage, func(r *wire.FriendApplyToResp) int { return len(r.FriendRequests) })
		},
		func() error { // relation SyncAllSelfFriendApplication
			return pageAll(s, "/friend/get_self_friend_apply_list", sdkDefaultPage, userPage, func(r *wire.FriendApplyFromResp) int { return len(r.FriendRequests) })
		},
		func() error { // group SyncAllAdminGroupApplication
			return pageAll(s, "/group/get_recv_group_applicationList", sdkDefaultPage,
				func(p *wire.RequestPagination) any { return wire.GroupApplicationsReq{FromUserID: uid, Pagination: p} },
				func(r *wire.GroupApplicationsResp) int { return len(r.GroupRequests) })
		},
		func() error { // group SyncAllSelfGroupApplication
			return pageAll(s, "/group/get_user_req_group_applicationList", sdkDefaultPage,
				func(p *wire.RequestPagination) any { return wire.UserGroupApplicationsReq{UserID: uid, Pagination: p} },
				func(r *wire.GroupApplicationsResp) int { return len(r.GroupRequests) })
		},
		func() error { // user.SyncAllCommand
			return s.rest("/user/process_user_command_get_all", wire.UserCommandsReq{UserID: uid}, nil)
		},
	}
}

// changed is an incremental answer's verdict (incrversion option.go Sync):
// nothing to do unless it is full or lists a change.
func changed(full bool, n ...int) bool {
	for _, x := range n {
		if x > 0 {
			return true
		}
	}
	return full
}

// groupsAndMembers is group SyncAllJoinedGroupsAndMembers: the joined
// groups by version, then every joined group's members by version.
func (s *sdkSync) groupsAndMembers() error {
	uid := s.c.uid
	v := s.l.version("group")
	var r wire.IncrementalJoinGroupsResp
	if err := s.rest("/group/get_incremental_join_groups", wire.IncrementalReq{UserID: uid, VersionID: v.id, Version: v.v}, &r); err != nil {
		return err
	}
	if changed(r.Full, len(r.Delete), len(r.Insert), len(r.Update)) {
		if r.Full {
			err := pageAll(s, "/group/get_joined_group_list", sdkGroupPage,
				func(p *wire.RequestPagination) any { return wire.JoinedGroupsReq{FromUserID: uid, Pagination: p} },
				func(r *wire.JoinedGroupsResp) int { return len(r.Groups) })
			if err != nil {
				return err
			}
			var ids wire.FullGroupIDsResp
			if err := s.rest("/group/get_full_join_group_ids", wire.FullIDsReq{UserID: uid}, &ids); err != nil {
				return err
			}
			s.l.mu.Lock()
			s.l.groups = ids.GroupIDs
			s.l.mu.Unlock()
		} else {
			s.l.mu.Lock()
			s.l.groups = applyIDs(s.l.groups, r.Delete, groupIDs(r.Insert))
			s.l.mu.Unlock()
		}
		s.l.setVersion("group", r.VersionID, r.Version)
	}
	return s.groupMembers()
}

func groupIDs(gs []*wire.GroupInfo) []string {
	out := make([]string, 0, len(gs))
	for _, g := range gs {
		if g != nil {
			out = append(out, g.GroupID)
		}
	}
	return out
}

// applyIDs removes del from ids and appends ins not there yet.
func applyIDs(ids, del, ins []string) []string {
	gone := map[string]bool{}
	for _, id := range del {
		gone[id] = true
	}
	out := ids[:0:0]
	have := map[string]bool{}
	for _, id := range append(append([]string(nil), ids...), ins...) {
		if !gone[id] && !have[id] {
			have[id] = true
			out = append(out, id)
		}
	}
	return out
}

// groupMembers is group IncrSyncJoinGroupMember: the members of the joined
// groups by version, 500 groups a call, then each group whose answer says
// so in full (sync2.go IncrSyncGroupAndMember, syncGroupAndMember).
func (s *sdkSync) groupMembers() error {
	s.l.mu.Lock()
	groups := append([]string(nil), s.l.groups...)
	s.l.mu.Unlock()
	var errs []error
	for start := 0; start < len(groups); start += sdkMemberBatch {
		batch := groups[start:min(start+sdkMemberBatch, len(groups))]
		req := wire.BatchIncrementalGroupMemberReq{UserID: s.c.uid}
		for _, g := range batch {
			v := s.l.version("member/" + g)
			req.ReqList = append(req.ReqList, &wire.IncrementalGroupMemberReq{GroupID: g, VersionID: v.id, Version: v.v})
		}
		var r wire.BatchIncrementalGroupMemberResp
		if err := s.rest("/group/get_incremental_group_members_batch", req, &r); err != nil {
			return err
		}
		var eg errgroup.Group
		eg.SetLimit(sdkGroupParallel)
		for _, g := range sortedKeys(r.RespList) {
			gr := r.RespList[g]
			if gr == nil || !changed(gr.Full, len(gr.Delete), len(gr.Insert), len(gr.Update)) {
				continue
			}
			eg.Go(func() error {
				if gr.Full {
					err := pageAll(s, "/group/get_group_member_list", sdkGroupPage,
						func(p *wire.RequestPagination) any { return wire.GroupMembersReq{GroupID: g, Pagination: p} },
						func(r *wire.GroupMembersResp) int { return len(r.Members) })
					if err != nil {
						return err
					}
					if err := s.rest("/group/get_full_group_member_user_ids", wire.FullIDsReq{GroupID: g}, &wire.FullUserIDsResp{}); err != nil {
						return err
					}
				}
				s.l.setVersion("member/"+g, gr.VersionID, gr.Version)
				return nil
			})
		}
		errs = append(errs, eg.Wait())
	}
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// friends is relation IncrSyncFriends (sync2.go): by version, or in full.
func (s *sdkSync) friends() error {
	uid := s.c.uid
	v := s.l.version("friend")
	var r wire.IncrementalFriendsResp
	if err := s.rest("/friend/get_incremental_friends", wire.IncrementalReq{UserID: uid, VersionID: v.id, Version: v.v}, &r); err != nil {
		return err
	}
	if !changed(r.Full, len(r.Delete), len(r.Insert), len(r.Update)) {
		return nil
	}
	if r.Full {
		err := pageAll(s, "/friend/get_friend_list", sdkFriendPage,
			func(p *wire.RequestPagination) any { return wire.FriendsReq{UserID: uid, Pagination: p} },
			func(r *wire.FriendsResp) int { return len(r.FriendsInfo) })
		if err != nil {
			return err
		}
		var ids wire.FullUserIDsResp
		if err := s.rest("/friend/get_full_friend_user_ids", wire.FullIDsReq{UserID: uid}, &ids); err != nil {
			return err
		}
		s.l.mu.Lock()
		clear(s.l.friends)
		for _, f := range ids.UserIDs {
			s.l.friends[f] = true
		}
		s.l.mu.Unlock()
	} else {
		s.l.mu.Lock()
		for _, f := range r.Delete {
			delete(s.l.friends, f)
		}
		for _, f := range r.Insert {
			if f != nil && f.FriendUser != nil {
				s.l.friends[f.FriendUser.UserID] = true
			}
		}
		s.l.mu.Unlock()
	}
	s.l.setVersion("friend", r.VersionID, r.Version)
	return nil
}

// conversations is conversation_msg IncrSyncConversations (sync2.go): by
// version, or in full: page by page into an empty local table, the whole
// list otherwise, then the ids.
func (s *sdkSync) conversations() error {
	uid := s.c.uid
	v := s.l.version("conversation")
	var r wire.IncrementalConversationsResp
	if err := s.rest("/conversation/get_incremental_conversations", wire.IncrementalReq{UserID: uid, VersionID: v.id, Version: v.v}, &r); err != nil {
		return err
	}
	if !changed(r.Full, len(r.Delete), len(r.Insert), len(r.Update)) {
		return nil
	}
	s.l.mu.Lock()
	none := len(s.l.convs) == 0
	s.l.mu.Unlock()
	if r.Full {
		var err error
		if none {
			err = pageAll(s, "/conversation/get_owner_conversation", sdkConvPage,
				func(p *wire.RequestPagination) any { return wire.OwnerConversationsReq{UserID: uid, Pagination: p} },
				func(r *wire.OwnerConversationsResp) int { return len(r.Conversations) })
		} else {
			err = s.rest("/conversation/get_all_conversations", wire.ConversationsReq{OwnerUserID: uid}, &wire.ConversationsResp{})
		}
		if err != nil {
			return err
		}
		var ids wire.FullConversationIDsResp
		if err := s.rest("/conversation/get_full_conversation_ids", wire.FullIDsReq{UserID: uid}, &ids); err != nil {
			return err
		}
		s.l.mu.Lock()
		clear(s.l.convs)
		for _, id := range ids.ConversationIDs {
			s.l.convs[id] = true
		}
		s.l.mu.Unlock()
	} else {
		s.l.mu.Lock()
		for _, id := range r.Delete {
			delete(s.l.convs, id)
		}
		for _, cv := range append(r.Insert, r.Update...) {
			if cv != nil {
				s.l.convs[cv.ConversationID] = true
			}
		}
		s.l.mu.Unlock()
	}
	s.l.setVersion("conversation", r.VersionID, r.Version)
	return nil
}

// hasReadSeqs is conversation_msg SyncAllConversationHashReadSeqs: 1006,
// then the conversations it names that the client does not hold, with the
// names and faces of their peers and groups (batchAddFaceURLAndName: the
// users who are not local friends, the groups not joined locally).
func (s *sdkSync) hasReadSeqs() error {
	uid := s.c.uid
	var r pb.GetConversationsHasReadAndMaxSeqResp
	if err := s.call(wire.ReqGetConvMaxReadSeq, &pb.GetConversationsHasReadAndMaxSeqReq{UserID: uid}, &r); err != nil {
		return err
	}
	s.l.mu.Lock()
	var need []string
	for id := range r.Seqs {
		if !s.l.convs[id] {
			need = append(need, id)
		}
	}
	s.l.mu.Unlock()
	if len(need) == 0 {
		return nil
	}
	sort.Strings(need)
	var cs wire.ConversationsResp
	if err := s.rest("/conversation/get_conversations", wire.ConversationsReq{OwnerUserID: uid, ConversationIDs: need}, &cs); err != nil {
		return err
	}
	var users, groups []string
	s.l.mu.Lock()
	joined := map[string]bool{}
	for _, g := range s.l.groups {
		joined[g] = true
	}
	for _, cv := range cs.Conversations {
		if cv == nil {
			continue
		}
		s.l.convs[cv.ConversationID] = true
		switch {
		case cv.ConversationType == wire.SessionGroup && !joined[cv.GroupID]:
			groups = append(groups, cv.GroupID)
		case cv.ConversationType == wire.SessionSingle && !s.l.friends[cv.UserID]:
			users = append(users, cv.UserID)
		}
	}
	s.l.mu.Unlock()
	var errs []error
	if len(users) > 0 {
		errs = append(errs, s.rest("/user/get_users_info", wire.UsersInfoReq{UserIDs: users}, nil))
	}
	if len(groups) > 0 {
		errs = append(errs, s.rest("/group/get_groups_info", wire.GroupsInfoReq{GroupIDs: groups}, nil))
	}
	return errors.Join(errs...)
}

// pullNewest is msg_sync.go compareSeqsAndBatchSync at connectPullNums (1):
// for every conversation whose newest seq is past the one held, its newest
// message. A fresh install leaves notification conversations out
// (syncAndTriggerReinstallMsgs, up to 10 requests at once); later logins
// pull them whole (syncAndTriggerMsgs, one request after the other). A
// request holds one range per conversation and closes once its messages
// reach 100 (a conversation counts its range's length, at most num).
func (s *sdkSync) pullNewest(maxSeqs map[string]int64, fresh, recover bool) error {
	need := map[string][2]int64{}
	s.l.mu.Lock()
	for id, maxSeq := range maxSeqs {
		notification := strings.HasPrefix(id, "n_")
		if fresh && notification {
			if maxSeq != 0 {
				s.l.synced[id] = maxSeq
			}
			continue
		}
		if synced, ok := s.l.synced[id]; ok {
			if maxSeq > synced {
				need[id] = [2]int64{synced + 1, maxSeq}
			}
		} else if maxSeq != 0 || fresh {
			need[id] = [2]int64{0, maxSeq}
		}
	}
	s.l.mu.Unlock()
	var batches [][]*pb.SeqRange
	var batch []*pb.SeqRange
	n := 0
	for _, id := range sortedKeys(need) {
		r := need[id]
		batch = append(batch, &pb.SeqRange{ConversationID: id, Begin: r[0], End: r[1], Num: 1})
		if strings.HasPrefix(id, "n_") {
			n += int(r[1] - r[0] + 1)
		} else {
			n += int(min(r[1]-r[0]+1, 1))
		}
		if n >= sdkPullBatch {
			batches, batch, n = append(batches, batch), nil, 0
		}
	}
	if len(batch) > 0 {
		batches = append(batches, batch)
	}
	var eg errgroup.Group
	if fresh {
		eg.SetLimit(sdkPullParallel)
	} else {
		eg.SetLimit(1)
	}
	for _, b := range batches {
		eg.Go(func() error { return s.pull(b, recover) })
	}
	return eg.Wait()
}

// pull sends one login pull and waits for it; the ranges' ends become the
// seqs held, as the SDK records them.
func (s *sdkSync) pull(ranges []*pb.SeqRange, recover bool) error {
	done := make(chan error, 1)
	if err := s.c.pullRanges(ranges, recover, func(err error) { done <- err }); err != nil {
		return err
	}
	var err error
	select {
	case err = <-done:
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	if err != nil {
		return err
	}
	s.l.mu.Lock()
	for _, r := range ranges {
		s.l.synced[r.ConversationID] = max(s.l.synced[r.ConversationID], r.End)
	}
	s.l.mu.Unlock()
	return nil
}

// newUserAPI is the users' REST client: one pool of keep-alive connections
// for every user of the process (an SDK keeps one of its own), at most
// userAPIConns of them: a login storm opening a connection per call drops
// SYNs even on loopback and waits out their retransmission (1 s, then 2).
func newUserAPI(cfg Config) *API {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = userAPIConns, userAPIConns, userAPIConns
	return &API{Base: cfg.APIURL, Secret: cfg.Secret, AdminID: cfg.AdminID,
		HTTP: &http.Client{Timeout: 2 * cfg.Timeout, Transport: tr}}
}
