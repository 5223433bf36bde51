package openim

import (
	"context"
	"crypto/md5"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/k6/im/engine"
	"github.com/imbench/imbench/k6/im/netloop"
	"github.com/imbench/imbench/k6/im/plan"
	"github.com/imbench/imbench/k6/im/verify"
	"github.com/imbench/imbench/k6/im/ws"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// LoginError is a handshake the gateway refused, with its errCode.
type LoginError struct {
	User string
	Code int
	Msg  string
	Dlt  string
}

func (e *LoginError) Error() string {
	s := fmt.Sprintf("login of %s refused: errCode %d %s", e.User, e.Code, e.Msg)
	if e.Dlt != "" {
		s += ": " + firstLine(e.Dlt)
	}
	return s
}

// ErrKicked ends a connection the server replaced (2002 KickOnlineMsg).
var ErrKicked = errors.New("kicked by the server (another login of this user and platform)")

const (
	maxSeqsPerRange = 100 // what the SDK asks for when it splits a pull
	maxFrame        = 1 << 20
)

// conn is one user's gateway connection. Its bytes arrive through
// netloop (OnData, OnClose: one at a time, on a loop goroutine shared with
// other connections); frames go out whole through the stream.
type conn struct {
	d     *Driver
	user  uint32
	uid   string
	st    netloop.Stream
	rd    ws.Reader
	codec wire.Codec
	h     engine.Handler

	pmu     sync.Mutex
	pending map[string]*pending
	incr    atomic.Uint64
	kicked  atomic.Bool
	ended   atomic.Bool // set by OnClose, under cmu

	cmu     sync.Mutex         // Close against OnClose
	onEnd   func(dropped bool) // set by Close: our goodbye is out
	goodbye bool               // a close frame answered ours
	wait    *time.Timer        // ends the connection if no answer comes
}

// closeWait bounds the wait for the server's answer to our close frame.
const closeWait = 3 * time.Second

type pending struct {
	cb    func(*wire.Resp, error)
	timer *time.Timer
}

var errConnClosed = errors.New("connection closed")

func (d *Driver) dial(ctx context.Context, u uint32, token string, h engine.Handler) (*conn, error) {
	uid := d.users[u]
	q := url.Values{}
	q.Set("sendID", uid)
	q.Set("token", token)
	q.Set("platformID", strconv.Itoa(d.cfg.Platform))
	q.Set("operationID", "imbench-login-"+uid)
	q.Set("isBackground", "false")
	q.Set("sdkType", d.cfg.Envelope.SDKType())
	if d.cfg.Gzip {
		q.Set("compression", "gzip")
	}
	if d.cfg.MsgResp {
		q.Set("isMsgResp", "true")
	}
	wsURL, err := url.Parse(d.GatewayOf(u) + "/?" + q.Encode())
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	nc, err := d.netDial(ctx, "tcp", hostPort(wsURL))
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if wsURL.Scheme == "wss" {
		tc := tls.Client(nc, &tls.Config{ServerName: wsURL.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, fmt.Errorf("login of %s: %w", uid, err)
		}
		nc = tc
	}
	rest, err := ws.Handshake(ctx, nc, wsURL, d.cfg.Timeout)
	if err == nil && d.cfg.MsgResp {
		rest, err = readAuth(nc, rest, uid, d.cfg.Timeout)
	}
	if err != nil {
		nc.Close()
		var he *ws.HandshakeError
		var le *LoginError
		switch {
		case errors.As(err, &le):
			return nil, le
		case errors.As(err, &he):
			if le := parseLoginError(uid, he.Body); le != nil {
				return nil, le
			}
			return nil, fmt.Errorf("login of %s: handshake refused with HTTP %d: %s", uid, he.Status, firstLine(string(he.Body)))
		}
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	c := &conn{d: d, user: u, uid: uid, h: h, pending: map[string]*pending{},
		codec: wire.Codec{Envelope: d.cfg.Envelope, Gzip: d.cfg.Gzip}}
	c.rd.Max = maxFrame
	if c.st, err = netloop.Attach(nc, c, d.cfg.ReadTimeout, netloop.DefaultMode); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if err := c.st.Start(rest); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	return c, nil
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "wss" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// readAuth reads the text frame an isMsgResp gateway sends first: the auth
// result. It returns the bytes read past it.
func readAuth(nc net.Conn, buf []byte, uid string, timeout time.Duration) ([]byte, error) {
	nc.SetReadDeadline(time.Now().Add(timeout))
	defer nc.SetReadDeadline(time.Time{})
	chunk := make([]byte, 4096)
	for {
		op, body, rest, ok, err := ws.FirstMessage(buf)
		if err != nil {
			return nil, err
		}
		if ok {
			le := parseLoginError(uid, body)
			if op != ws.OpText || le == nil {
				return nil, fmt.Errorf("unexpected first frame %q", firstLine(string(body)))
			}
			if le.Code != 0 {
				return nil, le
			}
			return rest, nil
		}
		n, err := nc.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			return nil, fmt.Errorf("no auth result: %w", err)
		}
	}
}

// parseLoginError reads the gateway's login answer; nil means body is not one.
func parseLoginError(uid string, body []byte) *LoginError {
	a, ok := wire.ParseLoginAnswer(body)
	if !ok {
		return nil
	}
	return &LoginError{User: uid, Code: a.ErrCode, Msg: a.ErrMsg, Dlt: a.ErrDlt}
}

func (c *conn) request(id int32, data []byte, cb func(*wire.Resp, error)) error {
	incr := c.uid + "_" + strconv.FormatUint(c.incr.Add(1), 10)
	p := &pending{cb: cb}
	c.pmu.Lock()
	if c.pending == nil {
		c.pmu.Unlock()
		return errConnClosed
	}
	c.pending[incr] = p
	p.timer = time.AfterFunc(c.d.cfg.Timeout, func() {
		if c.take(incr) != nil {
			cb(nil, fmt.Errorf("no answer to request %d within %s", id, c.d.cfg.Timeout))
		}
	})
	c.pmu.Unlock()
	frame, err := c.codec.EncodeReq(&wire.Req{ReqIdentifier: id, SendID: c.uid, OperationID: incr, MsgIncr: incr, Data: data})
	if err == nil {
		err = c.write(ws.OpBinary, frame)
	}
	if err != nil && c.take(incr) != nil {
		return err
	}
	return nil
}

func (c *conn) take(incr string) *pending {
	c.pmu.Lock()
	p := c.pending[incr]
	delete(c.pending, incr)
	c.pmu.Unlock()
	if p != nil && p.timer != nil {
		p.timer.Stop()
	}
	return p
}

func respError(r *wire.Resp) error {
	if r.ErrCode != 0 {
		return &APIError{Path: "request " + strconv.Itoa(int(r.ReqIdentifier)), Code: r.ErrCode, Msg: r.ErrMsg}
	}
	return nil
}

// Send implements engine.Conn.
func (c *conn) Send(m plan.Msg, text []byte, createMs int64, done func(error)) error {
	d := c.d
	cv := d.plan.Convs[m.Conv]
	md := &pb.MsgData{
		SendID:           c.uid,
		ClientMsgID:      clientMsgID(d.conv[m.Conv], c.uid, m.N),
		SenderPlatformID: int32(d.cfg.Platform),
		MsgFrom:          wire.MsgFromUser,
		ContentType:      wire.ContentTypeText,
		Content:          wire.TextContent(text),
		CreateTime:       createMs,
	}
	if cv.Kind == plan.Group {
		md.SessionType, md.GroupID = wire.SessionGroup, d.plan.GroupID(cv.Group)
	} else {
		peer := cv.Peers[0]
		if peer == m.Sender {
			peer = cv.Peers[1]
		}
		md.SessionType, md.RecvID = wire.SessionSingle, d.users[peer]
	}
	data, err := proto.Marshal(md)
	if err != nil {
		return err
	}
	return c.request(wire.ReqSendMsg, data, func(r *wire.Resp, err error) {
		if err == nil {
			err = respError(r)
		}
		done(err)
	})
}

// clientMsgID is unique per message, an md5 hex like the SDK's.
func clientMsgID(conv, uid string, n uint32) string {
	sum := md5.Sum([]byte(conv + "|" + uid + "|" + strconv.FormatUint(uint64(n), 10)))
	return hex.EncodeToString(sum[:])
}

// Pull implements engine.Conn: PullMsgByRange (1002) over contiguous runs.
func (c *conn) Pull(seqs map[uint32][]uint64, recover bool, done func(error)) error {
	req := &pb.PullMessageBySeqsReq{UserID: c.uid, Order: pb.PullOrder_PullOrderAsc}
	for cv, list := range seqs {
		sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
		for i := 0; i < len(list); {
			j := i
			for j+1 < len(list) && list[j+1] == list[j]+1 && j+1-i < maxSeqsPerRange {
				j++
			}
			req.SeqRanges = append(req.SeqRanges, &pb.SeqRange{ConversationID: c.d.conv[cv],
				Begin: int64(list[i]), End: int64(list[j]), Num: int64(j - i + 1)})
			i = j + 1
		}
	}
	if len(req.SeqRanges) == 0 {
		done(nil)
		return nil
	}
	data, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	return c.request(wire.ReqPullMsgByRange, data, func(r *wire.Resp, err error) {
		if err == nil {
			err = respError(r)
		}
		if err == nil {
			var resp pb.PullMessageBySeqsResp
			if err = proto.Unmarshal(r.Data, &resp); err == nil {
				for _, a := range c.arrivals(resp.Msgs, true, recover) {
					c.h.Arrive(a)
				}
			}
		}
		done(err)
	})
}

// MaxSeqs implements engine.Conn: GetNewestSeq (1001).
func (c *conn) MaxSeqs(done func(map[uint32]uint64, error)) error {
	data, err := proto.Marshal(&pb.GetMaxSeqReq{UserID: c.uid})
	if err != nil {
		return err
	}
	return c.request(wire.ReqGetNewestSeq, data, func(r *wire.Resp, err error) {
		if err == nil {
			err = respError(r)
		}
		if err != nil {
			done(nil, err)
			return
		}
		var resp pb.GetMaxSeqResp
		if err := proto.Unmarshal(r.Data, &resp); err != nil {
			done(nil, err)
			return
		}
		out := make(map[uint32]uint64, len(resp.MaxSeqs))
		for id, s := range resp.MaxSeqs {
			if cv, ok := c.d.byID[id]; ok && s > 0 {
				out[cv] = uint64(s)
			}
		}
		done(out, nil)
	})
}

var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// write sends one whole frame.
func (c *conn) write(op ws.Op, payload []byte) error {
	bp := frameBufs.Get().(*[]byte)
	b := ws.AppendFrame((*bp)[:0], op, payload)
	err := c.st.Write(b, c.d.cfg.Timeout)
	*bp = b
	frameBufs.Put(bp)
	return err
}

// Ping implements engine.Conn with a WebSocket ping control frame.
func (c *conn) Ping() error { return c.write(ws.OpPing, nil) }

// Alive implements engine.Conn.
func (c *conn) Alive() bool { return !c.ended.Load() }

// Close implements engine.Conn: a close frame, then the server's answer
// (or closeWait) ends the connection. A connection that ends any other way,
// or had ended already, was dropped.
func (c *conn) Close(ended func(dropped bool)) {
	c.cmu.Lock()
	if c.ended.Load() {
		c.cmu.Unlock()
		ended(true)
		return
	}
	c.onEnd = ended
	c.wait = time.AfterFunc(closeWait, func() { c.st.Close() })
	c.cmu.Unlock()
	if c.write(ws.OpClose, ws.ClosePayload(1000, "")) != nil {
		c.st.Close()
	}
}

// OnData implements netloop.Handler.
func (c *conn) OnData(b []byte) error { return c.rd.Feed(b, c.onMessage) }

func (c *conn) onMessage(op ws.Op, p []byte) error {
	switch op {
	case ws.OpBinary:
		return c.handleFrame(p)
	case ws.OpPing:
		return c.write(ws.OpPong, p)
	case ws.OpClose:
		c.cmu.Lock()
		answered := c.onEnd != nil
		c.goodbye = answered
		c.cmu.Unlock()
		if !answered { // the server's own goodbye: answer it
			_ = c.write(ws.OpClose, p)
		}
		return closeError(p)
	}
	return nil // text frames: a JSON pong, or the isMsgResp auth result; pongs
}

func closeError(p []byte) error {
	if len(p) < 2 {
		return errors.New("the server closed the connection")
	}
	return fmt.Errorf("the server closed the connection (%d %s)", binary.BigEndian.Uint16(p), p[2:])
}

// OnClose implements netloop.Handler: fail what still waits for an answer,
// then tell the engine, unless Close ended it.
func (c *conn) OnClose(err error) {
	c.cmu.Lock()
	c.ended.Store(true)
	onEnd := c.onEnd
	unanswered := c.wait != nil && !c.wait.Stop() // closeWait passed
	dropped := !c.goodbye && !unanswered
	c.cmu.Unlock()
	c.pmu.Lock()
	left := c.pending
	c.pending = nil
	c.pmu.Unlock()
	for _, p := range left {
		if p.timer.Stop() {
			p.cb(nil, errConnClosed)
		}
	}
	if onEnd != nil {
		onEnd(dropped)
		return
	}
	if c.kicked.Load() {
		c.h.Closed(c, ErrKicked, true)
		return
	}
	c.h.Closed(c, err, false)
}

// handleFrame decodes one binary frame: a push (decoded once per process,
// see frameCache), a kick, or the answer to a request.
func (c *conn) handleFrame(frame []byte) error {
	key := frameKey(frame)
	if arrivals := c.d.frames.get(key, frame); arrivals != nil {
		for _, a := range arrivals {
			c.h.Arrive(a)
		}
		return nil
	}
	resp := new(wire.Resp)
	if err := c.codec.DecodeResp(frame, resp); err != nil {
		return err
	}
	switch resp.ReqIdentifier {
	case wire.PushMsg:
		var push pb.PushMessages
		if err := proto.Unmarshal(resp.Data, &push); err != nil {
			return fmt.Errorf("decode push: %w", err)
		}
		arrivals := c.arrivals(push.Msgs, false, false)
		c.d.frames.put(key, frame, arrivals)
		for _, a := range arrivals {
			c.h.Arrive(a)
		}
	case wire.KickOnlineMsg:
		c.kicked.Store(true)
	default:
		if p := c.take(resp.MsgIncr); p != nil {
			p.cb(resp, nil)
		}
	}
	return nil
}

// arrivals resolves decoded messages to plan indexes; pushed texts are
// parsed here, once for every receiver of the frame.
func (c *conn) arrivals(msgs map[string]*pb.PullMsgs, pulled, recover bool) []verify.Arrival {
	var out []verify.Arrival
	for id, pm := range msgs {
		cv, ok := c.d.byID[id]
		if !ok || pm == nil {
			continue // not a conversation of the plan (e.g. notifications)
		}
		for _, m := range pm.Msgs {
			a := verify.Arrival{
				Conv:     cv,
				Seq:      uint64(max(m.Seq, 0)),
				Sender:   c.d.plan.ParseUserID(m.SendID),
				Text:     wire.ContentText(m.Content),
				CreateMs: m.CreateTime,
				Pulled:   pulled,
				GapFill:  recover,
			}
			if !pulled {
				a.Parsed = verify.Parse(a.Text)
			}
			out = append(out, a)
		}
	}
	return out
}
