// Package openim is the reference target's OpenIM front: a msggateway-like
// WebSocket endpoint and the openim-api REST routes imbench's setup uses.
// It decodes and encodes frames the way the real gateway does (a fresh gob
// encoder and decoder per frame, standard gzip), independently of the fast
// client codec, so each side checks the other.
package openim

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// Gateway limits and deadlines, as msggateway's constant.go has them.
const (
	PongWait       = 30 * time.Second // read deadline: a client silent this long is dropped
	writeWait      = 10 * time.Second
	maxMessageSize = 51200
	queueFrames    = 1024
)

// Gateway serves the WebSocket endpoint.
type Gateway struct {
	Core        core.Backend
	Metrics     *core.Metrics
	Log         *slog.Logger
	ReadTimeout time.Duration // PongWait unless set

	upgrader websocket.Upgrader
}

// NewGateway returns a gateway over c: the core in this process, or a link
// to it in another (cluster.Remote).
func NewGateway(c core.Backend, m *core.Metrics, log *slog.Logger) *Gateway {
	return &Gateway{Core: c, Metrics: m, Log: log, ReadTimeout: PongWait, upgrader: websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   1024,
		WriteBufferSize:  1024,
		WriteBufferPool:  &sync.Pool{},
		CheckOrigin:      func(*http.Request) bool { return true },
	}}
}

type loginArgs struct {
	user     string
	token    string
	platform int
	env      wire.Envelope
	gzip     bool
	msgResp  bool
}

func parseLogin(r *http.Request) (loginArgs, *core.Error) {
	q := r.URL.Query()
	a := loginArgs{user: q.Get("sendID"), token: q.Get("token"), msgResp: q.Get("isMsgResp") == "true"}
	bad := func(format string, v ...any) (loginArgs, *core.Error) {
		return a, &core.Error{Code: core.CodeConnArgs, Msg: "ConnArgsErr", Dlt: fmt.Sprintf(format, v...)}
	}
	if a.user == "" || a.token == "" {
		return bad("sendID and token are required")
	}
	p, err := strconv.Atoi(q.Get("platformID"))
	if err != nil {
		return bad("platformID %q is not a number", q.Get("platformID"))
	}
	a.platform = p
	if q.Get("operationID") == "" {
		return bad("operationID is empty")
	}
	if _, err := strconv.ParseBool(q.Get("isBackground")); err != nil {
		return bad("isBackground %q is not a bool", q.Get("isBackground"))
	}
	switch q.Get("sdkType") {
	case "", "go":
		a.env = wire.Gob
	case "js":
		a.env = wire.JSON
	default:
		return bad("sdkType %q not supported", q.Get("sdkType"))
	}
	a.gzip = q.Get("compression") == "gzip" || r.Header.Get("compression") == "gzip"
	return a, nil
}

type errBody struct {
	ErrCode int    `json:"errCode"`
	ErrMsg  string `json:"errMsg"`
	ErrDlt  string `json:"errDlt"`
}

// ServeHTTP accepts a login on any path, as msggateway does.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, cerr := parseLogin(r)
	if cerr == nil {
		cerr = g.Core.CheckLogin(a.token, a.user, a.platform)
	}
	if cerr != nil {
		g.Metrics.Login(strconv.Itoa(cerr.Code))
		body, _ := json.Marshal(errBody{cerr.Code, cerr.Msg, cerr.Dlt})
		if a.msgResp {
			if ws, err := g.upgrader.Upgrade(w, r, nil); err == nil {
				ws.WriteMessage(websocket.TextMessage, body)
				ws.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
		return
	}
	ws, err := g.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &conn{g: g, ws: ws, env: a.env, gzip: a.gzip, wake: make(chan struct{}, 1), done: make(chan struct{})}
	c.variant = 0
	if a.env == wire.JSON {
		c.variant = 2
	}
	if a.gzip {
		c.variant++
	}
	if a.msgResp {
		ok, _ := json.Marshal(errBody{})
		ws.WriteMessage(websocket.TextMessage, ok)
	}
	c.sess = core.NewSession(a.user, a.platform, a.token, c)
	if err := g.Core.Attach(c.sess); err != nil {
		g.Metrics.Login(strconv.Itoa(err.Code))
		body, _ := json.Marshal(errBody{err.Code, err.Msg, err.Dlt})
		ws.WriteMessage(websocket.TextMessage, body)
		ws.Close()
		return
	}
	g.Metrics.Login("ok")
	go c.writeLoop()
	c.readLoop()
}

// conn is one client connection: this goroutine reads, writeLoop writes
// everything (replies and pushes) in queue order.
type conn struct {
	g       *Gateway
	ws      *websocket.Conn
	sess    *core.Session
	env     wire.Envelope
	gzip    bool
	variant int
	// The write queue: a slice, not a buffered channel, so that an idle
	// connection holds no queue (1,024 slots of a channel cost 64 KB each).
	qmu   sync.Mutex
	queue []frame
	wake  chan struct{}
	done  chan struct{}
	once  sync.Once
}

type frame struct {
	push  *core.Push
	data  []byte
	text  bool
	kick  bool // write 2002 KickOnlineMsg, then close
	final bool // close after writing
	at    time.Time
}

// Deliver implements core.Outlet.
func (c *conn) Deliver(p *core.Push, at time.Time) bool {
	return c.enqueue(frame{push: p, at: at})
}

// Kick implements core.Outlet: 2002, then close.
func (c *conn) Kick() { c.enqueue(frame{kick: true, at: time.Now()}) }

// Close implements core.Outlet: the TCP connection ends with no close
// frame, as a dropped connection does.
func (c *conn) Close() bool { return c.end(nil) }

// end ends the connection once, reporting whether this call did; answer,
// when set, is written first as a close frame (the reply to the client's).
func (c *conn) end(answer []byte) bool {
	did := false
	c.once.Do(func() {
		did = true
		close(c.done)
		if answer != nil {
			c.ws.WriteControl(websocket.CloseMessage, answer, time.Now().Add(writeWait))
		}
		c.ws.Close()
	})
	return did
}

func (c *conn) enqueue(f frame) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	c.qmu.Lock()
	full := len(c.queue) >= queueFrames
	if !full {
		c.queue = append(c.queue, f)
	}
	c.qmu.Unlock()
	if full {
		c.g.Log.Warn("write queue full, closing", "user", c.sess.User)
		c.Close()
		return false
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

func (c *conn) writeLoop() {
	for {
		c.qmu.Lock()
		batch := c.queue
		c.queue = nil
		c.qmu.Unlock()
		if len(batch) == 0 {
			select {
			case <-c.wake:
				continue
			case <-c.done:
				return
			}
		}
		for _, f := range batch {
			if !c.write(f) {
				return
			}
		}
	}
}

// write sends one queued frame; false ends the connection.
func (c *conn) write(f frame) bool {
	if d := time.Until(f.at); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.done:
			t.Stop()
			return false
		}
	}
	data, mt := f.data, websocket.BinaryMessage
	var err error
	switch {
	case f.kick:
		data, err = c.encode(&wire.Resp{ReqIdentifier: wire.KickOnlineMsg})
	case f.push != nil:
		data, err = f.push.Frame(c.variant, c.pushFrame)
	case f.text:
		mt = websocket.TextMessage
	}
	if err == nil {
		c.ws.SetWriteDeadline(time.Now().Add(writeWait))
		err = c.ws.WriteMessage(mt, data)
	}
	if err != nil || f.kick || f.final {
		c.Close()
		return false
	}
	if f.push != nil {
		c.g.Metrics.PushWritten(f.push, time.Now().UnixMilli())
	}
	return true
}

func (c *conn) encode(r *wire.Resp) ([]byte, error) {
	b, err := c.env.EncodeResp(r)
	if err != nil || !c.gzip {
		return b, err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (c *conn) pushFrame(m *core.Message) ([]byte, error) {
	data, err := proto.Marshal(&pb.PushMessages{Msgs: map[string]*pb.PullMsgs{m.ConvID: {Msgs: []*pb.MsgData{toPB(m)}}}})
	if err != nil {
		return nil, err
	}
	return c.encode(&wire.Resp{ReqIdentifier: wire.PushMsg, Data: data})
}

func (c *conn) readLoop() {
	defer func() {
		c.g.Core.Detach(c.sess)
		c.Close()
	}()
	c.ws.SetReadLimit(maxMessageSize)
	extend := func() { c.ws.SetReadDeadline(time.Now().Add(c.g.ReadTimeout)) }
	extend()
	c.ws.SetPingHandler(func(data string) error {
		extend()
		err := c.ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(writeWait))
		if errors.Is(err, websocket.ErrCloseSent) {
			return nil
		}
		return err
	})
	c.ws.SetPongHandler(func(string) error { extend(); return nil })
	// The client's goodbye is answered unless a drop got there first; the
	// client tells the two apart by that answer.
	c.ws.SetCloseHandler(func(code int, _ string) error {
		c.end(websocket.FormatCloseMessage(code, ""))
		return nil
	})
	for {
		mt, data, err := c.ws.ReadMessage()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				c.g.Metrics.HeartbeatTimeout()
			}
			return
		}
		extend()
		switch mt {
		case websocket.BinaryMessage:
			if !c.handle(data) {
				return
			}
		case websocket.TextMessage:
			var msg struct {
				Type string          `json:"type"`
				Body json.RawMessage `json:"body"`
			}
			if json.Unmarshal(data, &msg) != nil {
				return
			}
			switch msg.Type {
			case "ping":
				body := msg.Body
				if len(body) == 0 {
					body = json.RawMessage("null")
				}
				pong, _ := json.Marshal(struct {
					Type string          `json:"type"`
					Body json.RawMessage `json:"body"`
				}{"pong", body})
				c.enqueue(frame{data: pong, text: true, at: time.Now()})
			case "pong":
			default:
				return // "not support message type"
			}
		}
	}
}

// handle serves one request; false closes the connection, which is what the
// gateway does on any decode error, foreign sendID or unknown request.
func (c *conn) handle(data []byte) bool {
	if c.gzip {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return false
		}
		if data, err = io.ReadAll(zr); err != nil {
			return false
		}
	}
	var req wire.Req
	if err := c.env.DecodeReq(data, &req); err != nil || req.SendID != c.sess.User {
		return false
	}
	resp := &wire.Resp{ReqIdentifier: req.ReqIdentifier, MsgIncr: req.MsgIncr, OperationID: req.OperationID}
	var (
		out  proto.Message
		cerr *core.Error
	)
	switch req.ReqIdentifier {
	case wire.ReqSendMsg:
		var md pb.MsgData
		if proto.Unmarshal(req.Data, &md) != nil {
			cerr = &core.Error{Code: 500, Msg: "ServerInternalError", Dlt: "bad MsgData"}
			break
		}
		var m *core.Message
		if m, cerr = c.g.Core.Send(fromPB(&md)); cerr == nil {
			out = &pb.SendMsgResp{ServerMsgID: m.ServerMsgID, ClientMsgID: m.ClientMsgID, SendTime: m.SendTime}
		}
	case wire.ReqGetNewestSeq:
		var r pb.GetMaxSeqReq
		if proto.Unmarshal(req.Data, &r) != nil || r.UserID != c.sess.User {
			cerr = &core.Error{Code: core.CodeNoPermission, Msg: "NoPermissionError", Dlt: "userID is not the connection's"}
			break
		}
		maxes := c.g.Core.MaxSeqs(r.UserID)
		mins := make(map[string]int64, len(maxes))
		for k := range maxes {
			mins[k] = 1
		}
		out = &pb.GetMaxSeqResp{MaxSeqs: maxes, MinSeqs: mins}
	case wire.ReqPullMsgByRange:
		var r pb.PullMessageBySeqsReq
		if proto.Unmarshal(req.Data, &r) != nil || r.UserID != c.sess.User {
			cerr = &core.Error{Code: core.CodeNoPermission, Msg: "NoPermissionError", Dlt: "userID is not the connection's"}
			break
		}
		res := &pb.PullMessageBySeqsResp{Msgs: map[string]*pb.PullMsgs{}}
		for _, sr := range r.SeqRanges {
			msgs, isEnd, endSeq := c.g.Core.Pull(r.UserID, sr.ConversationID, sr.Begin, sr.End, sr.Num)
			pm := res.Msgs[sr.ConversationID]
			if pm == nil {
				pm = &pb.PullMsgs{}
				res.Msgs[sr.ConversationID] = pm
			}
			for _, m := range msgs {
				pm.Msgs = append(pm.Msgs, toPB(m))
			}
			pm.IsEnd, pm.EndSeq = isEnd, endSeq
		}
		out = res
	case wire.LogoutMsg:
		if b, err := c.encode(resp); err == nil {
			c.enqueue(frame{data: b, final: true, at: time.Now()})
		}
		return true // the writer closes once the reply is out
	default:
		return false
	}
	if cerr != nil {
		resp.ErrCode, resp.ErrMsg = cerr.Code, cerr.Msg
	} else if out != nil {
		b, err := proto.Marshal(out)
		if err != nil {
			return false
		}
		resp.Data = b
	}
	return c.reply(resp)
}

func (c *conn) reply(r *wire.Resp) bool {
	b, err := c.encode(r)
	if err != nil {
		return false
	}
	return c.enqueue(frame{data: b, at: time.Now()})
}

func toPB(m *core.Message) *pb.MsgData {
	return &pb.MsgData{SendID: m.SendID, RecvID: m.RecvID, GroupID: m.GroupID, ClientMsgID: m.ClientMsgID,
		ServerMsgID: m.ServerMsgID, SenderPlatformID: m.SenderPlatformID, SenderNickname: m.SenderNickname,
		SessionType: m.SessionType, MsgFrom: m.MsgFrom, ContentType: m.ContentType, Content: m.Content,
		Seq: m.Seq, SendTime: m.SendTime, CreateTime: m.CreateTime, Status: m.Status, Ex: m.Ex}
}

func fromPB(md *pb.MsgData) *core.Message {
	return &core.Message{SendID: md.SendID, RecvID: md.RecvID, GroupID: md.GroupID, ClientMsgID: md.ClientMsgID,
		SenderPlatformID: md.SenderPlatformID, SenderNickname: md.SenderNickname, SessionType: md.SessionType,
		MsgFrom: md.MsgFrom, ContentType: md.ContentType, Content: md.Content, SendTime: md.SendTime,
		CreateTime: md.CreateTime, Ex: md.Ex}
}
