package openim_test

// Conformance of the OpenIM front end with what open-im-server v3.8 answers
// an OpenIM SDK (openim-sdk-core v3.8): every msggateway request
// identifier, every REST route of the SDK's login and sync, the multi-login
// policy and the notifications, each checked for the real response shape.
// The facts, with their sources, are in the comments of requests.go,
// seqs.go, api.go, api_sync.go and notify.go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/openim"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

type server struct {
	api, ws string
	core    *core.Core
	metrics *core.Metrics
	admin   string
}

func start(t *testing.T, notifications bool) *server {
	t.Helper()
	return startWith(t, func(f *openim.FrontEnd) { f.Notifications = notifications })
}

// startWith starts a server whose front end configure has set.
func startWith(t *testing.T, configure func(*openim.FrontEnd)) *server {
	t.Helper()
	m := core.NewMetrics()
	front := openim.New(m, slog.New(slog.DiscardHandler))
	configure(front)
	c, err := core.New(core.Config{Secret: "s3cret", Log: slog.New(slog.DiscardHandler)}, m)
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(front.API(c))
	t.Cleanup(api.Close)
	ws := httptest.NewServer(front.Gateway(c, 0))
	t.Cleanup(func() { ws.CloseClientConnections(); ws.Close() })
	s := &server{api: api.URL, ws: "ws" + strings.TrimPrefix(ws.URL, "http"), core: c, metrics: m}
	var tok struct{ Token string }
	s.ok(t, "/auth/get_admin_token", "", map[string]any{"secret": "s3cret", "userID": "imAdmin"}, &tok)
	s.admin = tok.Token
	return s
}

var opID atomic.Int64

// call posts a route and returns the HTTP status and the decoded envelope.
func (s *server) call(t *testing.T, path, token string, body any) (int, map[string]any) {
	t.Helper()
	return s.callOp(t, path, token, fmt.Sprint(opID.Add(1)), body)
}

// callOp is call with the given operationID.
func (s *server) callOp(t *testing.T, path, token, op string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, s.api+path, bytes.NewReader(b))
	req.Header.Set("operationID", op)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s: body %q is not JSON: %v", path, raw, err)
	}
	for _, k := range []string{"errCode", "errMsg", "errDlt"} {
		if _, ok := env[k]; !ok {
			t.Fatalf("%s: envelope %s has no %s", path, raw, k)
		}
	}
	return resp.StatusCode, env
}

// ok calls a route that must succeed and decodes its data into out.
func (s *server) ok(t *testing.T, path, token string, body, out any) map[string]any {
	t.Helper()
	status, env := s.call(t, path, token, body)
	if status != http.StatusOK || env["errCode"].(float64) != 0 {
		t.Fatalf("%s: HTTP %d %v", path, status, env)
	}
	data, _ := env["data"].(map[string]any)
	if out != nil {
		b, _ := json.Marshal(env["data"])
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return data
}

// refused calls a route that must be refused with code.
func (s *server) refused(t *testing.T, path, token string, body any, code int) {
	t.Helper()
	if status, env := s.call(t, path, token, body); status != http.StatusOK || int(env["errCode"].(float64)) != code {
		t.Fatalf("%s: HTTP %d %v, want errCode %d", path, status, env, code)
	}
}

func (s *server) userToken(t *testing.T, user string, platform int) string {
	t.Helper()
	var tok struct{ Token string }
	s.ok(t, "/auth/get_user_token", s.admin, map[string]any{"userID": user, "platformID": platform}, &tok)
	return tok.Token
}

// world registers a, b, c and d, makes a and b friends and puts a, b and c
// in group g.
func (s *server) world(t *testing.T) {
	t.Helper()
	s.ok(t, "/user/user_register", s.admin, map[string]any{"users": []map[string]any{
		{"userID": "a", "nickname": "Alice"}, {"userID": "b"}, {"userID": "c"}, {"userID": "d"}}}, nil)
	s.ok(t, "/friend/import_friend", s.admin, map[string]any{"ownerUserID": "a", "friendUserIDs": []string{"b"}}, nil)
	s.ok(t, "/group/create_group", s.admin, map[string]any{"ownerUserID": "a", "memberUserIDs": []string{"b"},
		"groupInfo": map[string]any{"groupID": "g", "groupName": "G", "groupType": 2}}, nil)
	s.ok(t, "/group/invite_user_to_group", s.admin, map[string]any{"groupID": "g", "invitedUserIDs": []string{"c"}}, nil)
}

// client is an SDK-like connection: gob or JSON envelopes, gzip.
type client struct {
	t      *testing.T
	ws     *websocket.Conn
	codec  wire.Codec
	user   string
	frames chan *wire.Resp
	held   []*wire.Resp // frames read while waiting for a reply
	incr   int
}

func dial(t *testing.T, s *server, user, token string, platform int, env wire.Envelope) *client {
	t.Helper()
	q := url.Values{"sendID": {user}, "token": {token}, "platformID": {fmt.Sprint(platform)},
		"operationID": {"op"}, "isBackground": {"false"}, "compression": {"gzip"}, "sdkType": {env.SDKType()}}
	ws, resp, err := websocket.DefaultDialer.Dial(s.ws+"/?"+q.Encode(), nil)
	if err != nil {
		body := ""
		if resp != nil {
			b, _ := io.ReadAll(resp.Body)
			body = string(b)
		}
		t.Fatalf("dial %s: %v %s", user, err, body)
	}
	c := &client{t: t, ws: ws, codec: wire.Codec{Envelope: env, Gzip: true}, user: user, frames: make(chan *wire.Resp, 256)}
	go func() {
		defer close(c.frames)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var r wire.Resp
			if err := c.codec.DecodeResp(data, &r); err != nil {
				t.Errorf("%s: undecodable frame: %v", user, err)
				return
			}
			c.frames <- &r
		}
	}()
	t.Cleanup(func() { ws.Close() })
	return c
}

func (c *client) send(id int32, sendID string, m proto.Message) string {
	c.t.Helper()
	c.incr++
	incr := fmt.Sprintf("%s_%d", c.user, c.incr)
	var data []byte
	if m != nil {
		var err error
		if data, err = proto.Marshal(m); err != nil {
			c.t.Fatal(err)
		}
	}
	frame, err := c.codec.EncodeReq(&wire.Req{ReqIdentifier: id, SendID: sendID, OperationID: "op_" + incr, MsgIncr: incr, Data: data})
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.ws.WriteMessage(websocket.BinaryMessage, frame); err != nil {
		c.t.Fatal(err)
	}
	return incr
}

// req sends a request and waits for its reply, checking the echo.
func (c *client) req(id int32, m proto.Message) *wire.Resp {
	c.t.Helper()
	incr := c.send(id, c.user, m)
	for {
		r := c.next()
		if r == nil {
			c.t.Fatalf("%s: connection ended before the reply to %d", c.user, id)
		}
		if r.MsgIncr != incr {
			c.held = append(c.held, r)
			continue
		}
		if r.ReqIdentifier != id || r.OperationID != "op_"+incr {
			c.t.Fatalf("reply to %d echoes %d %q", id, r.ReqIdentifier, r.OperationID)
		}
		return r
	}
}

func (c *client) next() *wire.Resp {
	select {
	case r := <-c.frames:
		return r
	case <-time.After(5 * time.Second):
		c.t.Fatalf("%s: no frame in 5 s", c.user)
		return nil
	}
}

// push returns the next push (2001), or the next kick (2002).
func (c *client) push() *wire.Resp {
	c.t.Helper()
	if len(c.held) > 0 {
		r := c.held[0]
		c.held = c.held[1:]
		return r
	}
	r := c.next()
	if r == nil {
		c.t.Fatalf("%s: connection ended, no push", c.user)
	}
	return r
}

// ended waits for the connection to end after the frames still due.
func (c *client) ended() {
	c.t.Helper()
	for {
		if r := c.next(); r == nil {
			return
		}
	}
}

func ok(t *testing.T, r *wire.Resp, m proto.Message) {
	t.Helper()
	if r.ErrCode != 0 || r.ErrMsg != "" {
		t.Fatalf("%d answered %d %q", r.ReqIdentifier, r.ErrCode, r.ErrMsg)
	}
	if m != nil {
		if err := proto.Unmarshal(r.Data, m); err != nil {
			t.Fatalf("%d: %v", r.ReqIdentifier, err)
		}
	}
}

func refused(t *testing.T, r *wire.Resp, code int, msg string) {
	t.Helper()
	if r.ErrCode != code || r.ErrMsg != msg || len(r.Data) != 0 {
		t.Fatalf("%d answered %d %q (%d data bytes), want %d %s", r.ReqIdentifier, r.ErrCode, r.ErrMsg, len(r.Data), code, msg)
	}
}

func text(from, groupID, recvID, s string) *pb.MsgData {
	md := &pb.MsgData{SendID: from, ClientMsgID: from + s, SenderPlatformID: 2, MsgFrom: wire.MsgFromUser,
		ContentType: wire.ContentTypeText, Content: wire.TextContent([]byte(s)), CreateTime: time.Now().UnixMilli()}
	if groupID != "" {
		md.GroupID, md.SessionType = groupID, wire.SessionGroup
	} else {
		md.RecvID, md.SessionType = recvID, wire.SessionSingle
	}
	return md
}

func TestGatewayAnswersEveryRequestIdentifier(t *testing.T) {
	for _, env := range []wire.Envelope{wire.Gob, wire.JSON} {
		t.Run(string(env), func(t *testing.T) { testIdentifiers(t, env) })
	}
}

func testIdentifiers(t *testing.T, env wire.Envelope) {
	s := start(t, false)
	s.world(t)
	a := dial(t, s, "a", s.userToken(t, "a", 2), 2, env)
	b := dial(t, s, "b", s.userToken(t, "b", 5), 5, env)
	// The gateway attaches a connection to the core after the upgrade, as
	// msggateway registers it: a reply proves b is there for a's pushes.
	ok(t, b.req(wire.ReqGetConvMaxReadSeq, &pb.GetConversationsHasReadAndMaxSeqReq{UserID: "b"}), nil)

	// 1003: send; the reply is msg.SendMsgResp without the seq.
	var sent pb.SendMsgResp
	for i := range 3 {
		ok(t, a.req(wire.ReqSendMsg, text("a", "g", "", fmt.Sprint("g", i))), &sent)
		if sent.ServerMsgID == "" || sent.ClientMsgID != fmt.Sprint("ag", i) || sent.SendTime == 0 {
			t.Fatalf("1003 answered %+v", &sent)
		}
	}
	ok(t, a.req(wire.ReqSendMsg, text("a", "", "b", "hi")), nil)
	// 1004: the gateway hands the msg service no MsgData.
	refused(t, a.req(wire.ReqSendSignalMsg, text("a", "g", "", "x")), 1001, "ArgsError")

	// 1001: maxSeqs of conversations with messages, no minSeqs.
	var newest pb.GetMaxSeqResp
	ok(t, a.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: "a"}), &newest)
	if len(newest.MaxSeqs) != 2 || newest.MaxSeqs["sg_g"] != 3 || newest.MaxSeqs["si_a_b"] != 1 || len(newest.MinSeqs) != 0 {
		t.Fatalf("1001 answered %+v", &newest)
	}
	refused(t, a.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: "b"}), 1002, "NoPermissionError")
	refused(t, a.req(wire.ReqGetNewestSeq, nil /* no userID */), 1002, "NoPermissionError")

	// 1002: ranges; an empty or foreign conversation is left out, no endSeq.
	var pulled pb.PullMessageBySeqsResp
	ok(t, a.req(wire.ReqPullMsgByRange, &pb.PullMessageBySeqsReq{UserID: "a", SeqRanges: []*pb.SeqRange{
		{ConversationID: "sg_g", Begin: 1, End: 3, Num: 2},
		{ConversationID: "si_a_b", Begin: 5, End: 9, Num: 5},
		{ConversationID: "si_c_d", Begin: 1, End: 1, Num: 1},
	}}), &pulled)
	g := pulled.Msgs["sg_g"]
	if len(pulled.Msgs) != 1 || g == nil || len(g.Msgs) != 2 || g.Msgs[0].Seq != 2 || g.Msgs[1].Seq != 3 || !g.IsEnd || g.EndSeq != 0 {
		t.Fatalf("1002 answered %+v", &pulled)
	}

	// 1005: seq lists; isEnd and endSeq name the last seq when one beyond was asked.
	var bySeq pb.GetSeqMessageResp
	ok(t, a.req(wire.ReqPullMsgBySeqList, &pb.GetSeqMessageReq{UserID: "a", Conversations: []*pb.ConversationSeqs{
		{ConversationID: "sg_g", Seqs: []int64{1, 3, 9}}}}), &bySeq)
	g = bySeq.Msgs["sg_g"]
	if g == nil || len(g.Msgs) != 2 || g.Msgs[0].Seq != 1 || g.Msgs[1].Seq != 3 || !g.IsEnd || g.EndSeq != 3 {
		t.Fatalf("1005 answered %+v", &bySeq)
	}

	// 1006: max seq and has-read seq (a sender has read up to its own last message).
	var seqs pb.GetConversationsHasReadAndMaxSeqResp
	ok(t, a.req(wire.ReqGetConvMaxReadSeq, &pb.GetConversationsHasReadAndMaxSeqReq{UserID: "a"}), &seqs)
	if len(seqs.Seqs) != 2 || seqs.Seqs["sg_g"].GetMaxSeq() != 3 || seqs.Seqs["sg_g"].GetHasReadSeq() != 3 {
		t.Fatalf("1006 answered %+v", &seqs)
	}
	ok(t, b.req(wire.ReqGetConvMaxReadSeq, &pb.GetConversationsHasReadAndMaxSeqReq{UserID: "b", ConversationIDs: []string{"sg_g"}}), &seqs)
	if len(seqs.Seqs) != 1 || seqs.Seqs["sg_g"].GetMaxSeq() != 3 || seqs.Seqs["sg_g"].GetHasReadSeq() != 0 {
		t.Fatalf("1006 for a reader answered %+v", &seqs)
	}

	// 1007: the last message of each conversation.
	var last pb.GetLastMessageResp
	ok(t, a.req(wire.ReqPullConvLastMsg, &pb.GetLastMessageReq{UserID: "a", ConversationIDs: []string{"sg_g", "si_a_b", "sg_none"}}), &last)
	if len(last.Msgs) != 2 || last.Msgs["sg_g"].GetSeq() != 3 || last.Msgs["si_a_b"].GetSeq() != 1 {
		t.Fatalf("1007 answered %+v", &last)
	}

	// 2004: no data.
	r := a.req(wire.SetBackgroundStatus, &pb.SetAppBackgroundStatusReq{UserID: "a", IsBackground: true})
	ok(t, r, nil)
	if len(r.Data) != 0 {
		t.Fatalf("2004 answered %d data bytes", len(r.Data))
	}
	ok(t, a.req(wire.SetBackgroundStatus, &pb.SetAppBackgroundStatusReq{UserID: "a"}), nil)

	// 2005: the platforms each subscribed user is online on.
	var tips pb.SubUserOnlineStatusTips
	ok(t, a.req(wire.SubUserOnlineStatus, &pb.SubUserOnlineStatus{SubscribeUserID: []string{"b", "d"}}), &tips)
	if len(tips.Subscribers) != 2 || tips.Subscribers[0].UserID != "b" || !slices.Equal(tips.Subscribers[0].OnlinePlatformIDs, []int32{5}) ||
		len(tips.Subscribers[1].OnlinePlatformIDs) != 0 {
		t.Fatalf("2005 answered %+v", &tips)
	}

	// b got a's group messages pushed: 2001 with PushMessages under sg_g.
	for i := range 3 {
		p := b.push()
		var pm pb.PushMessages
		if p.ReqIdentifier != wire.PushMsg || p.MsgIncr != "" || proto.Unmarshal(p.Data, &pm) != nil ||
			pm.Msgs["sg_g"].GetMsgs()[0].GetSeq() != int64(i+1) {
			t.Fatalf("push %d: %+v", i, p)
		}
	}

	// Identifiers the gateway does not serve, 2001, 2002 and 3001 from a
	// client included, are answered 500 and end the connection as there.
	for _, id := range []int32{wire.PushMsg, wire.KickOnlineMsg, wire.DataError, 4242} {
		c := dial(t, s, "c", s.userToken(t, "c", 3), 3, env)
		refused(t, c.req(id, nil), 500, "ServerInternalError")
		c.ended()
	}
	// So is another user's sendID.
	c := dial(t, s, "c", s.userToken(t, "c", 4), 4, env)
	incr := c.send(wire.ReqGetNewestSeq, "d", &pb.GetMaxSeqReq{UserID: "d"})
	if r := c.push(); r.MsgIncr != incr || r.ErrCode != 500 {
		t.Fatalf("foreign sendID answered %+v", r)
	}
	c.ended()

	// 2003: an empty DelUserPushTokenResp, then the connection ends.
	r = b.req(wire.LogoutMsg, &pb.DelUserPushTokenReq{UserID: "b", PlatformID: 5})
	ok(t, r, &pb.DelUserPushTokenResp{})
	b.ended()
}

// A backgrounded iOS connection gets no online push (hub_server.go).
func TestBackgroundIOSGetsNoPush(t *testing.T) {
	s := start(t, false)
	s.world(t)
	a := dial(t, s, "a", s.userToken(t, "a", 2), 2, wire.Gob)
	b := dial(t, s, "b", s.userToken(t, "b", wire.PlatformIOS), wire.PlatformIOS, wire.Gob)
	ok(t, b.req(wire.SetBackgroundStatus, &pb.SetAppBackgroundStatusReq{UserID: "b", IsBackground: true}), nil)
	ok(t, a.req(wire.ReqSendMsg, text("a", "", "b", "hidden")), nil)
	ok(t, b.req(wire.SetBackgroundStatus, &pb.SetAppBackgroundStatusReq{UserID: "b"}), nil)
	ok(t, a.req(wire.ReqSendMsg, text("a", "", "b", "shown")), nil)
	var pm pb.PushMessages
	if p := b.push(); proto.Unmarshal(p.Data, &pm) != nil || pm.Msgs["si_a_b"].GetMsgs()[0].GetSeq() != 2 {
		t.Fatalf("first push after the background: %+v", &pm)
	}
}

// OpenIM's default multi-login policy: the token already online on a
// platform logs in beside it, and both are pushed to; a new token kicks
// every connection of the platform with 2002.
func TestSameTokenKeepsBothConnections(t *testing.T) {
	s := start(t, false)
	s.world(t)
	tok := s.userToken(t, "b", 2)
	b1 := dial(t, s, "b", tok, 2, wire.Gob)
	b2 := dial(t, s, "b", tok, 2, wire.JSON)
	for _, b := range []*client{b1, b2} { // online: answered after the session is attached
		ok(t, b.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: "b"}), nil)
	}
	a := dial(t, s, "a", s.userToken(t, "a", 2), 2, wire.Gob)
	ok(t, a.req(wire.ReqSendMsg, text("a", "", "b", "both")), nil)
	for _, b := range []*client{b1, b2} {
		if p := b.push(); p.ReqIdentifier != wire.PushMsg {
			t.Fatalf("got %+v, want the push", p)
		}
	}
	b3 := dial(t, s, "b", s.userToken(t, "b", 2), 2, wire.Gob)
	for _, b := range []*client{b1, b2} {
		if p := b.push(); p.ReqIdentifier != wire.KickOnlineMsg {
			t.Fatalf("got %+v, want the kick", p)
		}
		b.ended()
	}
	ok(t, b3.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: "b"}), nil)
}

func keys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Fatalf("%s: no %q in %v", what, k, m)
		}
	}
}

func TestRESTRoutesOfTheSDKLogin(t *testing.T) {
	s := start(t, false)
	s.world(t)
	tok := s.userToken(t, "a", 2)
	a := dial(t, s, "a", tok, 2, wire.Gob)
	ok(t, a.req(wire.ReqSendMsg, text("a", "", "b", "hi")), nil)
	page := map[string]any{"pageNumber": 1, "showNumber": 100}

	var users wire.UsersInfoResp
	s.ok(t, "/user/get_users_info", tok, map[string]any{"userIDs": []string{"a", "nobody"}}, &users)
	if len(users.UsersInfo) != 1 || users.UsersInfo[0].Nickname != "Alice" || users.UsersInfo[0].CreateTime == 0 {
		t.Fatalf("get_users_info: %+v", users)
	}
	keys(t, "user", s.ok(t, "/user/get_users_info", tok, map[string]any{"userIDs": []string{"a"}}, nil)["usersInfo"].([]any)[0].(map[string]any),
		"userID", "nickname", "faceURL", "ex", "createTime", "appMangerLevel", "globalRecvMsgOpt")
	keys(t, "commands", s.ok(t, "/user/process_user_command_get_all", tok, map[string]any{"userID": "a"}, nil), "CommandResp")

	// Incremental friends: full at first, equal with the version it gave.
	var inc wire.IncrementalFriendsResp
	keys(t, "incremental friends", s.ok(t, "/friend/get_incremental_friends", tok, map[string]any{"userID": "a"}, &inc),
		"version", "versionID", "full", "delete", "insert", "update", "sortVersion")
	if !inc.Full || len(inc.VersionID) != 24 || inc.Version == 0 {
		t.Fatalf("first get_incremental_friends: %+v", inc)
	}
	var again wire.IncrementalFriendsResp
	s.ok(t, "/friend/get_incremental_friends", tok, wire.IncrementalReq{UserID: "a", VersionID: inc.VersionID, Version: inc.Version}, &again)
	if again.Full || again.VersionID != inc.VersionID {
		t.Fatalf("get_incremental_friends at the current version: %+v", again)
	}
	var fids wire.FullUserIDsResp
	keys(t, "full friend ids", s.ok(t, "/friend/get_full_friend_user_ids", tok, map[string]any{"userID": "a"}, &fids),
		"version", "versionID", "equal", "userIDs")
	if !slices.Equal(fids.UserIDs, []string{"b"}) || fids.VersionID != inc.VersionID {
		t.Fatalf("get_full_friend_user_ids: %+v", fids)
	}
	var friends wire.FriendsResp
	s.ok(t, "/friend/get_friend_list", tok, map[string]any{"userID": "a", "pagination": page}, &friends)
	if friends.Total != 1 || friends.FriendsInfo[0].FriendUser.UserID != "b" {
		t.Fatalf("get_friend_list: %+v", friends)
	}
	keys(t, "blacks", s.ok(t, "/friend/get_black_list", tok, map[string]any{"userID": "a", "pagination": page}, nil), "blacks", "total")
	keys(t, "apply to", s.ok(t, "/friend/get_friend_apply_list", tok, map[string]any{"userID": "a", "pagination": page}, nil), "FriendRequests", "total")
	keys(t, "apply from", s.ok(t, "/friend/get_self_friend_apply_list", tok, map[string]any{"userID": "a", "pagination": page}, nil), "friendRequests", "total")

	// Groups.
	var groups wire.IncrementalJoinGroupsResp
	keys(t, "incremental groups", s.ok(t, "/group/get_incremental_join_groups", tok, map[string]any{"userID": "a"}, &groups),
		"version", "versionID", "full", "delete", "insert", "update", "sortVersion")
	if !groups.Full {
		t.Fatalf("first get_incremental_join_groups: %+v", groups)
	}
	var gids wire.FullGroupIDsResp
	s.ok(t, "/group/get_full_join_group_ids", tok, map[string]any{"userID": "a"}, &gids)
	if !slices.Equal(gids.GroupIDs, []string{"g"}) {
		t.Fatalf("get_full_join_group_ids: %+v", gids)
	}
	var joined wire.JoinedGroupsResp
	s.ok(t, "/group/get_joined_group_list", tok, map[string]any{"fromUserID": "a", "pagination": page}, &joined)
	if joined.Total != 1 || joined.Groups[0].GroupName != "G" || joined.Groups[0].MemberCount != 3 || joined.Groups[0].OwnerUserID != "a" {
		t.Fatalf("get_joined_group_list: %+v", joined)
	}
	keys(t, "group info", s.ok(t, "/group/get_groups_info", tok, map[string]any{"groupIDs": []string{"g"}}, nil)["groupInfos"].([]any)[0].(map[string]any),
		"groupID", "groupName", "ownerUserID", "memberCount", "createTime", "status", "creatorUserID", "groupType", "needVerification")
	var batch wire.BatchIncrementalGroupMemberResp
	s.ok(t, "/group/get_incremental_group_members_batch", tok, map[string]any{"userID": "a", "reqList": []map[string]any{{"groupID": "g"}, {"groupID": "other"}}}, &batch)
	if len(batch.RespList) != 1 || !batch.RespList["g"].Full || batch.RespList["g"].Group.GroupID != "g" {
		t.Fatalf("get_incremental_group_members_batch: %+v", batch)
	}
	var members wire.GroupMembersResp
	s.ok(t, "/group/get_group_member_list", tok, map[string]any{"groupID": "g", "pagination": map[string]any{"pageNumber": 1, "showNumber": 2}}, &members)
	if members.Total != 3 || len(members.Members) != 2 || members.Members[0].RoleLevel != wire.RoleOwner || members.Members[1].RoleLevel != wire.RoleOrdinary {
		t.Fatalf("get_group_member_list: %+v", members)
	}
	var mids wire.FullUserIDsResp
	s.ok(t, "/group/get_full_group_member_user_ids", tok, map[string]any{"groupID": "g"}, &mids)
	if !slices.Equal(mids.UserIDs, []string{"a", "b", "c"}) || mids.VersionID != batch.RespList["g"].VersionID {
		t.Fatalf("get_full_group_member_user_ids: %+v", mids)
	}
	keys(t, "recv applications", s.ok(t, "/group/get_recv_group_applicationList", tok, map[string]any{"fromUserID": "a", "pagination": page}, nil), "total", "groupRequests")
	keys(t, "sent applications", s.ok(t, "/group/get_user_req_group_applicationList", tok, map[string]any{"userID": "a", "pagination": page}, nil), "total", "groupRequests")

	// Conversations: the group's and the pair's.
	var convs wire.IncrementalConversationsResp
	keys(t, "incremental conversations", s.ok(t, "/conversation/get_incremental_conversations", tok, map[string]any{"userID": "a"}, &convs),
		"version", "versionID", "full", "delete", "insert", "update")
	var cids wire.FullConversationIDsResp
	s.ok(t, "/conversation/get_full_conversation_ids", tok, map[string]any{"userID": "a"}, &cids)
	if !convs.Full || !slices.Equal(cids.ConversationIDs, []string{"sg_g", "si_a_b"}) || cids.VersionID != convs.VersionID {
		t.Fatalf("conversation ids %+v, incremental %+v", cids, convs)
	}
	var owner wire.OwnerConversationsResp
	s.ok(t, "/conversation/get_owner_conversation", tok, map[string]any{"userID": "a", "pagination": map[string]any{"pageNumber": 2, "showNumber": 1}}, &owner)
	if owner.Total != 2 || len(owner.Conversations) != 1 || owner.Conversations[0].ConversationID != "si_a_b" ||
		owner.Conversations[0].ConversationType != 1 || owner.Conversations[0].UserID != "b" {
		t.Fatalf("get_owner_conversation: %+v", owner)
	}
	var all wire.ConversationsResp
	keys(t, "conversation", s.ok(t, "/conversation/get_all_conversations", tok, map[string]any{"ownerUserID": "a"}, &all)["conversations"].([]any)[0].(map[string]any),
		"ownerUserID", "conversationID", "recvMsgOpt", "conversationType", "userID", "groupID", "isPinned", "minSeq", "maxSeq")
	s.ok(t, "/conversation/get_conversations", tok, map[string]any{"ownerUserID": "a", "conversationIDs": []string{"sg_g"}}, &all)
	if len(all.Conversations) != 1 || all.Conversations[0].GroupID != "g" {
		t.Fatalf("get_conversations: %+v", all)
	}

	// The REST twins of 1001 and 1006.
	if m := s.ok(t, "/msg/newest_seq", tok, map[string]any{"userID": "a"}, nil)["maxSeqs"].(map[string]any); m["si_a_b"].(float64) != 1 {
		t.Fatalf("newest_seq: %v", m)
	}
	seqs := s.ok(t, "/msg/get_conversations_has_read_and_max_seq", tok, map[string]any{"userID": "a"}, nil)
	keys(t, "has read", seqs["seqs"].(map[string]any)["si_a_b"].(map[string]any), "maxSeq", "hasReadSeq", "maxSeqTime")
	keys(t, "has read", s.ok(t, "/msg/get_server_time", tok, map[string]any{}, nil), "serverTime")

	// A user acts only for itself (1002); a group's members are for its
	// members (1203).
	for _, path := range []string{"/friend/get_incremental_friends", "/conversation/get_full_conversation_ids", "/msg/newest_seq"} {
		s.refused(t, path, tok, map[string]any{"userID": "b"}, 1002)
	}
	s.refused(t, "/group/get_group_member_list", s.userToken(t, "d", 2), map[string]any{"groupID": "g"}, 1203)
	// Admin routes refuse a user's token.
	s.refused(t, "/user/account_check", tok, map[string]any{"checkUserIDs": []string{"a"}}, 1002)
}

func TestRESTRefusalsAsTheRealAPI(t *testing.T) {
	s := start(t, false)
	s.world(t)
	tok := s.userToken(t, "a", 2)
	// No token, a string that is no token, one the server does not know,
	// one a newer login replaced.
	s.refused(t, "/user/get_users_info", "", map[string]any{"userIDs": []string{"a"}}, 1001)
	s.refused(t, "/user/get_users_info", "not-a-token", map[string]any{"userIDs": []string{"a"}}, 1503)
	if _, env := s.call(t, "/user/get_users_info", "not-a-token", map[string]any{}); env["errMsg"] != "TokenMalformedError" {
		t.Fatalf("malformed token: %v", env)
	}
	s.refused(t, "/user/get_users_info", strings.Repeat("ab", 24), map[string]any{"userIDs": []string{"a"}}, 1507)
	s.userToken(t, "a", 2)
	s.refused(t, "/user/get_users_info", tok, map[string]any{"userIDs": []string{"a"}}, 1506)
	// Bad platforms; the admin has no user token.
	s.refused(t, "/auth/get_user_token", s.admin, map[string]any{"userID": "a", "platformID": 10}, 1002)
	s.refused(t, "/auth/get_user_token", s.admin, map[string]any{"userID": "imAdmin", "platformID": 2}, 1002)
	s.refused(t, "/auth/get_user_token", s.admin, map[string]any{"userID": "a", "platformID": 99}, 1001)
	// account_check refuses repeated ids.
	s.refused(t, "/user/account_check", s.admin, map[string]any{"checkUserIDs": []string{"a", "b", "a"}}, 1001)
	var check struct {
		Results []struct {
			UserID        string `json:"userID"`
			AccountStatus int    `json:"accountStatus"`
		} `json:"results"`
	}
	s.ok(t, "/user/account_check", s.admin, map[string]any{"checkUserIDs": []string{"a", "zz"}}, &check)
	if len(check.Results) != 2 || check.Results[0].AccountStatus != 1 || check.Results[1].AccountStatus != 0 {
		t.Fatalf("account_check: %+v", check)
	}
	// A path with no route is a 404 with the envelope.
	if status, env := s.call(t, "/no/such_route", s.admin, map[string]any{}); status != http.StatusNotFound ||
		env["errCode"].(float64) != 1004 || env["errMsg"] != "RecordNotFoundError" {
		t.Fatalf("no route: HTTP %d %v", status, env)
	}

	// /msg/send_msg: the admin sends as a user, msgFrom 200, the server's
	// client message id; a user may not; only known content types.
	var res wire.SendMsgResult
	keys(t, "send_msg", s.ok(t, "/msg/send_msg", s.admin, map[string]any{"sendID": "a", "groupID": "g", "sessionType": 3,
		"contentType": 101, "content": map[string]any{"content": "hello"}}, &res), "serverMsgID", "clientMsgID", "sendTime")
	if len(res.ClientMsgID) != 32 || res.SendTime == 0 {
		t.Fatalf("send_msg: %+v", res)
	}
	s.refused(t, "/msg/send_msg", s.userToken(t, "b", 2), map[string]any{"sendID": "b", "recvID": "a", "sessionType": 1,
		"contentType": 101, "content": map[string]any{"content": "x"}}, 1002)
	s.refused(t, "/msg/send_msg", s.admin, map[string]any{"sendID": "a", "recvID": "b", "sessionType": 1,
		"contentType": 1400, "content": map[string]any{}}, 1001)
	b := dial(t, s, "b", s.userToken(t, "b", 3), 3, wire.Gob)
	var pulled pb.PullMessageBySeqsResp
	ok(t, b.req(wire.ReqPullMsgByRange, &pb.PullMessageBySeqsReq{UserID: "b", SeqRanges: []*pb.SeqRange{{ConversationID: "sg_g", Begin: 1, End: 1, Num: 1}}}), &pulled)
	if m := pulled.Msgs["sg_g"].GetMsgs(); len(m) != 1 || m[0].MsgFrom != wire.MsgFromSystem || m[0].ClientMsgID != res.ClientMsgID ||
		string(m[0].Content) != `{"content":"hello"}` {
		t.Fatalf("the admin's message as pulled: %+v", &pulled)
	}
}

// With notifications on, creating a group, inviting and importing friends
// send what open-im-server sends: for each, a stored copy in the chat
// conversation, counted as a message, then an unstored push in the n_
// conversation.
func TestNotificationsArePushedAndCounted(t *testing.T) {
	s := start(t, true)
	s.ok(t, "/user/user_register", s.admin, map[string]any{"users": []map[string]any{{"userID": "a"}, {"userID": "b"}, {"userID": "c"}}}, nil)
	b := online(t, s, "b", wire.Gob)
	groupMsgs := counter(t, s.metrics, "group_chat_msg_process_success_total")
	s.ok(t, "/group/create_group", s.admin, map[string]any{"ownerUserID": "a", "memberUserIDs": []string{"b"},
		"groupInfo": map[string]any{"groupID": "g", "groupType": 2}}, nil)
	s.ok(t, "/group/invite_user_to_group", s.admin, map[string]any{"groupID": "g", "invitedUserIDs": []string{"c"}}, nil)
	s.ok(t, "/friend/import_friend", s.admin, map[string]any{"ownerUserID": "b", "friendUserIDs": []string{"c"}}, nil)
	for _, want := range []struct {
		conv, note string
		seq        int64
		ct         int32
		send       string
	}{{"sg_g", "n_g", 1, wire.ContentGroupCreated, "imAdmin"}, {"sg_g", "n_g", 2, wire.ContentMemberInvited, "imAdmin"},
		{"si_b_c", "n_b_c", 1, wire.ContentFriendApplicationApproved, "c"}} {
		var n, m pb.PushMessages
		if proto.Unmarshal(b.push().Data, &m) != nil || proto.Unmarshal(b.push().Data, &n) != nil {
			t.Fatal("undecodable push")
		}
		nm, cm := n.NotificationMsgs[want.note].GetMsgs(), m.Msgs[want.conv].GetMsgs()
		if len(n.Msgs) != 0 || len(nm) != 1 || nm[0].Seq != 0 || nm[0].ContentType != want.ct || nm[0].Options["isNotNotification"] ||
			len(cm) != 1 || cm[0].Seq != want.seq || cm[0].ContentType != want.ct || cm[0].MsgFrom != wire.MsgFromSystem || cm[0].SendID != want.send {
			t.Fatalf("notification %d: %+v then %+v", want.ct, &m, &n)
		}
		var elem wire.NotificationElem
		if json.Unmarshal(cm[0].Content, &elem) != nil || !json.Valid([]byte(elem.Detail)) {
			t.Fatalf("notification %d content %q", want.ct, cm[0].Content)
		}
	}
	if got := counter(t, s.metrics, "group_chat_msg_process_success_total") - groupMsgs; got != 2 {
		t.Fatalf("%v group notifications counted, want 2", got)
	}
	var newest pb.GetMaxSeqResp
	ok(t, b.req(wire.ReqGetNewestSeq, &pb.GetMaxSeqReq{UserID: "b"}), &newest)
	if newest.MaxSeqs["sg_g"] != 2 || newest.MaxSeqs["si_b_c"] != 1 || len(newest.MaxSeqs) != 2 {
		t.Fatalf("1001 after the notifications: %+v", &newest)
	}
}

func counter(t *testing.T, m *core.Metrics, name string) float64 {
	t.Helper()
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			sum := 0.0
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
			return sum
		}
	}
	return 0
}
