package openim

import (
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"slices"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// The routes an OpenIM SDK calls at login and when a notification tells it
// something changed (openim-sdk-core pkg/api/api.go names them; the login
// sync is internal/conversation_msg syncData and the incremental
// synchronizers of internal/friend, internal/group and
// internal/conversation_msg), answered from the core's relations and what
// the API was given (meta.go). Nothing here keeps blacklists, friend or
// group applications or user commands: those lists are empty.
//
// Incremental routes: open-im-server keeps a version log per list
// (internal/rpc/incrversion option.go) and answers a client's (versionID,
// version) with the changes since, or with full=true and no lists when it
// cannot, whereupon the SDK fetches the whole list and its ids
// (openim-sdk-core internal/incrversion option.go Sync). No log is kept
// here: a list's version is a digest of its ids, and an answer is either
// "equal" (the client's version is the list's: full=false, nothing
// changed) or full=true.

func (a *API) syncRoutes() {
	a.route("/user/get_users_info", anyToken, a.usersInfo)
	a.route("/user/process_user_command_get_all", anyToken, own(func(r *wire.UserCommandsReq) string { return r.UserID }, a.userCommands))
	a.route("/friend/get_incremental_friends", anyToken, own(func(r *wire.IncrementalReq) string { return r.UserID }, a.incrementalFriends))
	a.route("/friend/get_full_friend_user_ids", anyToken, own(func(r *wire.FullIDsReq) string { return r.UserID }, a.fullFriendIDs))
	a.route("/friend/get_friend_list", anyToken, own(func(r *wire.FriendsReq) string { return r.UserID }, a.friendList))
	a.route("/friend/get_black_list", anyToken, ownEmpty(func(r *wire.UserPageReq) string { return r.UserID }, wire.BlacksResp{Blacks: []*wire.BlackInfo{}}))
	a.route("/friend/get_friend_apply_list", anyToken, ownEmpty(func(r *wire.UserPageReq) string { return r.UserID }, wire.FriendApplyToResp{FriendRequests: []*wire.FriendRequest{}}))
	a.route("/friend/get_self_friend_apply_list", anyToken, ownEmpty(func(r *wire.UserPageReq) string { return r.UserID }, wire.FriendApplyFromResp{FriendRequests: []*wire.FriendRequest{}}))
	a.route("/group/get_incremental_join_groups", anyToken, own(func(r *wire.IncrementalReq) string { return r.UserID }, a.incrementalJoinGroups))
	a.route("/group/get_full_join_group_ids", anyToken, own(func(r *wire.FullIDsReq) string { return r.UserID }, a.fullJoinGroupIDs))
	a.route("/group/get_joined_group_list", anyToken, own(func(r *wire.JoinedGroupsReq) string { return r.FromUserID }, a.joinedGroupList))
	a.route("/group/get_incremental_group_members_batch", anyToken, own(func(r *wire.BatchIncrementalGroupMemberReq) string { return r.UserID }, a.incrementalGroupMembers))
	a.route("/group/get_group_member_list", anyToken, a.groupMemberList)
	a.route("/group/get_full_group_member_user_ids", anyToken, a.fullGroupMemberIDs)
	a.route("/group/get_groups_info", anyToken, a.groupsInfo)
	a.route("/group/get_recv_group_applicationList", anyToken, ownEmpty(func(r *wire.GroupApplicationsReq) string { return r.FromUserID }, wire.GroupApplicationsResp{GroupRequests: []*wire.GroupRequest{}}))
	a.route("/group/get_user_req_group_applicationList", anyToken, ownEmpty(func(r *wire.UserGroupApplicationsReq) string { return r.UserID }, wire.GroupApplicationsResp{GroupRequests: []*wire.GroupRequest{}}))
	a.route("/conversation/get_incremental_conversations", anyToken, own(func(r *wire.IncrementalReq) string { return r.UserID }, a.incrementalConversations))
	a.route("/conversation/get_full_conversation_ids", anyToken, own(func(r *wire.FullIDsReq) string { return r.UserID }, a.fullConversationIDs))
	a.route("/conversation/get_owner_conversation", anyToken, own(func(r *wire.OwnerConversationsReq) string { return r.UserID }, a.ownerConversations))
	a.route("/conversation/get_all_conversations", anyToken, own(func(r *wire.ConversationsReq) string { return r.OwnerUserID }, a.allConversations))
	a.route("/conversation/get_conversations", anyToken, own(func(r *wire.ConversationsReq) string { return r.OwnerUserID }, a.someConversations))
	a.route("/msg/newest_seq", anyToken, own(func(r *newestSeqReq) string { return r.UserID }, a.newestSeq))
	a.route("/msg/get_conversations_has_read_and_max_seq", anyToken, own(func(r *hasReadReq) string { return r.UserID }, a.hasReadAndMaxSeq))
}

// own is a route about the caller's own lists: it decodes the request,
// checks that its owner is the caller (or the caller the admin), then
// answers it.
func own[Req any](owner func(*Req) string, answer func(*Req) (any, error)) handler {
	return func(_ *http.Request, who caller, body []byte) (any, error) {
		var req Req
		if err := decode(body, &req); err != nil {
			return nil, err
		}
		if err := self(who, owner(&req)); err != nil {
			return nil, err
		}
		return answer(&req)
	}
}

// ownEmpty answers a list the target never fills (blacklists, friend and
// group applications): the caller's own, always empty.
func ownEmpty[Req any](owner func(*Req) string, empty any) handler {
	return own(owner, func(*Req) (any, error) { return empty, nil })
}

// listVersion is a list's version: an ObjectID-like digest of its sorted
// ids, and a number that is never 0 (the server treats 0 as "none").
func listVersion(kind, owner string, ids []string) (string, uint64) {
	h := md5.New()
	for _, s := range append([]string{kind, owner}, ids...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), uint64(len(ids)) + 1
}

// page returns the page p asks for (pageNumber from 1); no page, or no
// size, is everything.
func page[T any](list []T, p *wire.RequestPagination) []T {
	if p == nil || p.ShowNumber <= 0 {
		return list
	}
	n := max(int(p.PageNumber), 1)
	lo := min((n-1)*int(p.ShowNumber), len(list))
	hi := min(lo+int(p.ShowNumber), len(list))
	return list[lo:hi]
}

func (a *API) userInfo(id string) *wire.UserInfo {
	u := a.meta.user(id)
	return &u
}

// groupInfo is sdkws.GroupInfo of a group; nil when there is none.
func (a *API) groupInfo(id string) *wire.GroupInfo {
	members, err := a.Core.Members(id)
	if err != nil {
		return nil
	}
	owner, _ := a.Core.GroupOwner(id)
	g, _ := a.meta.group(id)
	g.GroupID, g.OwnerUserID, g.MemberCount = id, owner, uint32(len(members))
	if g.CreatorUserID == "" {
		g.CreatorUserID = owner
	}
	g.GroupType = wire.GroupTypeWorking
	return &g
}

// members is sdkws.GroupMemberFullInfo of each of a group's members, in
// the order they joined.
func (a *API) members(groupID string, ids []string) []*wire.GroupMemberFullInfo {
	owner, _ := a.Core.GroupOwner(groupID)
	_, admins := a.meta.group(groupID)
	out := make([]*wire.GroupMemberFullInfo, 0, len(ids))
	for _, id := range ids {
		u := a.meta.user(id)
		m := &wire.GroupMemberFullInfo{GroupID: groupID, UserID: id, RoleLevel: wire.RoleOrdinary,
			Nickname: u.Nickname, FaceURL: u.FaceURL, JoinSource: 2}
		switch {
		case id == owner:
			m.RoleLevel = wire.RoleOwner
		case admins[id]:
			m.RoleLevel = wire.RoleAdmin
		}
		out = append(out, m)
	}
	return out
}

// conversations are a user's conversation records: one per group the user
// is in (OpenIM makes them at creation and invitation) and one per user it
// has exchanged a message with (made at the first message), by id.
func (a *API) conversations(user string) ([]*wire.Conversation, error) {
	groups, err := a.Core.JoinedGroups(user)
	if err != nil {
		return nil, err
	}
	peers, err := a.Core.DirectPeers(user)
	if err != nil {
		return nil, err
	}
	out := make([]*wire.Conversation, 0, len(groups)+len(peers))
	for _, g := range groups {
		out = append(out, &wire.Conversation{OwnerUserID: user, ConversationID: wire.GroupConversationID(g),
			ConversationType: wire.SessionGroup, GroupID: g})
	}
	for _, p := range peers {
		out = append(out, &wire.Conversation{OwnerUserID: user, ConversationID: wire.SingleConversationID(user, p),
			ConversationType: wire.SessionSingle, UserID: p})
	}
	slices.SortFunc(out, func(x, y *wire.Conversation) int {
		switch {
		case x.ConversationID < y.ConversationID:
			return -1
		case x.ConversationID > y.ConversationID:
			return 1
		}
		return 0
	})
	return out, nil
}

func conversationIDs(cs []*wire.Conversation) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ConversationID
	}
	return ids
}

func (a *API) usersInfo(_ *http.Request, _ caller, body []byte) (any, error) {
	var req wire.UsersInfoReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	reg := a.Core.Registered(req.UserIDs)
	out := wire.UsersInfoResp{UsersInfo: []*wire.UserInfo{}}
	for _, id := range req.UserIDs {
		if reg[id] {
			out.UsersInfo = append(out.UsersInfo, a.userInfo(id))
		}
	}
	return out, nil
}

func (a *API) userCommands(req *wire.UserCommandsReq) (any, error) {
	return wire.UserCommandsResp{CommandResp: []*wire.UserCommand{}}, nil
}

func (a *API) incrementalFriends(req *wire.IncrementalReq) (any, error) {
	friends, err := a.Core.Friends(req.UserID)
	if err != nil {
		return nil, err
	}
	vid, v := listVersion("friend", req.UserID, friends)
	return wire.IncrementalFriendsResp{Version: v, VersionID: vid, Full: vid != req.VersionID || v != req.Version,
		Delete: []string{}, Insert: []*wire.FriendInfo{}, Update: []*wire.FriendInfo{}}, nil
}

func (a *API) fullFriendIDs(req *wire.FullIDsReq) (any, error) {
	friends, err := a.Core.Friends(req.UserID)
	if err != nil {
		return nil, err
	}
	vid, v := listVersion("friend", req.UserID, friends)
	return wire.FullUserIDsResp{Version: v, VersionID: vid, UserIDs: friends}, nil
}

func (a *API) friendList(req *wire.FriendsReq) (any, error) {
	friends, err := a.Core.Friends(req.UserID)
	if err != nil {
		return nil, err
	}
	out := wire.FriendsResp{FriendsInfo: []*wire.FriendInfo{}, Total: int32(len(friends))}
	for _, f := range page(friends, req.Pagination) {
		out.FriendsInfo = append(out.FriendsInfo, &wire.FriendInfo{OwnerUserID: req.UserID, FriendUser: a.userInfo(f), AddSource: 1})
	}
	return out, nil
}

func (a *API) incrementalJoinGroups(req *wire.IncrementalReq) (any, error) {
	groups, err := a.Core.JoinedGroups(req.UserID)
	if err != nil {
		return nil, err
	}
	vid, v := listVersion("group", req.UserID, groups)
	return wire.IncrementalJoinGroupsResp{Version: v, VersionID: vid, Full: vid != req.VersionID || v != req.Version,
		Delete: []string{}, Insert: []*wire.GroupInfo{}, Update: []*wire.GroupInfo{}}, nil
}

func (a *API) fullJoinGroupIDs(req *wire.FullIDsReq) (any, error) {
	groups, err := a.Core.JoinedGroups(req.UserID)
	if err != nil {
		return nil, err
	}
	vid, v := listVersion("group", req.UserID, groups)
	return wire.FullGroupIDsResp{Version: v, VersionID: vid, GroupIDs: groups}, nil
}

func (a *API) joinedGroupList(req *wire.JoinedGroupsReq) (any, error) {
	groups, err := a.Core.JoinedGroups(req.FromUserID)
	if err != nil {
		return nil, err
	}
	out := wire.JoinedGroupsResp{Total: uint32(len(groups)), Groups: []*wire.GroupInfo{}}
	for _, g := range page(groups, req.Pagination) {
		if info := a.groupInfo(g); info != nil {
			out.Groups = append(out.Groups, info)
		}
	}
	return out, nil
}

// memberIDs returns a group's members if the caller may see them: a
// member, or the admin.
func (a *API) memberIDs(who caller, groupID string) ([]string, error) {
	members, err := a.Core.Members(groupID)
	if err != nil {
		return nil, err
	}
	if !who.admin && !slices.Contains(members, who.user) {
		return nil, core.ErrNotMember.With("%s is not in group %s", who.user, groupID)
	}
	return members, nil
}

func (a *API) incrementalGroupMembers(req *wire.BatchIncrementalGroupMemberReq) (any, error) {
	out := wire.BatchIncrementalGroupMemberResp{RespList: map[string]*wire.IncrementalGroupMemberResp{}}
	for _, g := range req.ReqList {
		members, err := a.memberIDs(caller{user: req.UserID}, g.GroupID)
		if err != nil {
			continue
		}
		vid, v := listVersion("groupMember", g.GroupID, slices.Sorted(slices.Values(members)))
		out.RespList[g.GroupID] = &wire.IncrementalGroupMemberResp{Version: v, VersionID: vid,
			Full: vid != g.VersionID || v != g.Version, Delete: []string{}, Insert: []*wire.GroupMemberFullInfo{},
			Update: []*wire.GroupMemberFullInfo{}, Group: a.groupInfo(g.GroupID)}
	}
	return out, nil
}

func (a *API) groupMemberList(_ *http.Request, who caller, body []byte) (any, error) {
	var req wire.GroupMembersReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	members, err := a.memberIDs(who, req.GroupID)
	if err != nil {
		return nil, err
	}
	return wire.GroupMembersResp{Total: uint32(len(members)), Members: a.members(req.GroupID, page(members, req.Pagination))}, nil
}

func (a *API) fullGroupMemberIDs(_ *http.Request, who caller, body []byte) (any, error) {
	var req wire.FullIDsReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	members, err := a.memberIDs(who, req.GroupID)
	if err != nil {
		return nil, err
	}
	sorted := slices.Sorted(slices.Values(members))
	vid, v := listVersion("groupMember", req.GroupID, sorted)
	return wire.FullUserIDsResp{Version: v, VersionID: vid, UserIDs: sorted}, nil
}

func (a *API) groupsInfo(_ *http.Request, _ caller, body []byte) (any, error) {
	var req wire.GroupsInfoReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	out := wire.GroupsInfoResp{GroupInfos: []*wire.GroupInfo{}}
	for _, id := range req.GroupIDs {
		if info := a.groupInfo(id); info != nil {
			out.GroupInfos = append(out.GroupInfos, info)
		}
	}
	return out, nil
}

func (a *API) incrementalConversations(req *wire.IncrementalReq) (any, error) {
	convs, err := a.conversations(req.UserID)
	if err != nil {
		return nil, err
	}
	vid, v := listVersion("conversation", req.UserID, conversationIDs(convs))
	return wire.IncrementalConversationsResp{Version: v, VersionID: vid, Full: vid != req.VersionID || v != req.Version,
		Delete: []string{}, Insert: []*wire.Conversation{}, Update: []*wire.Conversation{}}, nil
}

func (a *API) fullConversationIDs(req *wire.FullIDsReq) (any, error) {
	convs, err := a.conversations(req.UserID)
	if err != nil {
		return nil, err
	}
	ids := conversationIDs(convs)
	vid, v := listVersion("conversation", req.UserID, ids)
	return wire.FullConversationIDsResp{Version: v, VersionID: vid, ConversationIDs: ids}, nil
}

func (a *API) ownerConversations(req *wire.OwnerConversationsReq) (any, error) {
	convs, err := a.conversations(req.UserID)
	if err != nil {
		return nil, err
	}
	return wire.OwnerConversationsResp{Total: int64(len(convs)), Conversations: page(convs, req.Pagination)}, nil
}

func (a *API) allConversations(req *wire.ConversationsReq) (any, error) {
	convs, err := a.conversations(req.OwnerUserID)
	if err != nil {
		return nil, err
	}
	return wire.ConversationsResp{Conversations: convs}, nil
}

func (a *API) someConversations(req *wire.ConversationsReq) (any, error) {
	convs, err := a.conversations(req.OwnerUserID)
	if err != nil {
		return nil, err
	}
	out := wire.ConversationsResp{Conversations: []*wire.Conversation{}}
	for _, c := range convs {
		if slices.Contains(req.ConversationIDs, c.ConversationID) {
			out.Conversations = append(out.Conversations, c)
		}
	}
	return out, nil
}

type newestSeqReq struct {
	UserID string `json:"userID"`
}

// newestSeq is /msg/newest_seq, the REST twin of 1001.
func (a *API) newestSeq(req *newestSeqReq) (any, error) {
	return struct {
		MaxSeqs map[string]int64 `json:"maxSeqs"`
	}{newestSeqs(a.Core, req.UserID).MaxSeqs}, nil
}

type hasReadReq struct {
	UserID          string   `json:"userID"`
	ConversationIDs []string `json:"conversationIDs"`
}

// hasReadAndMaxSeq is /msg/get_conversations_has_read_and_max_seq, the
// REST twin of 1006.
func (a *API) hasReadAndMaxSeq(req *hasReadReq) (any, error) {
	type seqs struct {
		MaxSeq     int64 `json:"maxSeq"`
		HasReadSeq int64 `json:"hasReadSeq"`
		MaxSeqTime int64 `json:"maxSeqTime"`
	}
	r := hasReadAndMaxSeqs(a.Core, a.reads, &pb.GetConversationsHasReadAndMaxSeqReq{UserID: req.UserID, ConversationIDs: req.ConversationIDs})
	out := struct {
		Seqs                  map[string]seqs `json:"seqs"`
		PinnedConversationIDs []string        `json:"pinnedConversationIDs"`
	}{Seqs: map[string]seqs{}, PinnedConversationIDs: []string{}}
	for id, s := range r.Seqs {
		out.Seqs[id] = seqs{s.MaxSeq, s.HasReadSeq, s.MaxSeqTime}
	}
	return out, nil
}
