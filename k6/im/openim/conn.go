package openim

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/k6/im/engine"
	"github.com/imbench/imbench/k6/im/openim/pb"
	"github.com/imbench/imbench/k6/im/plan"
	"github.com/imbench/imbench/k6/im/verify"
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

// Small read and write buffers (writes borrow from a pool between frames):
// an idle user should cost little more than its socket and reader goroutine.
var writeBufs = &sync.Pool{}

const (
	maxSeqsPerRange = 100 // what the SDK asks for when it splits a pull
	maxFrame        = 1 << 20
)

type conn struct {
	d     *Driver
	user  uint32
	uid   string
	ws    *websocket.Conn
	codec Codec
	h     engine.Handler

	wmu     sync.Mutex
	pmu     sync.Mutex
	pending map[string]*pending
	incr    atomic.Uint64
	ours    atomic.Bool // closed by Close
	kicked  atomic.Bool
	ended   atomic.Bool
}

type pending struct {
	cb    func(*Resp, error)
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
	dialer := websocket.Dialer{
		NetDialContext:   d.netDial,
		HandshakeTimeout: d.cfg.Timeout,
		ReadBufferSize:   512,
		WriteBufferSize:  512,
		WriteBufferPool:  writeBufs,
	}
	ws, resp, err := dialer.DialContext(ctx, d.GatewayOf(u)+"/?"+q.Encode(), nil)
	if err != nil {
		if errors.Is(err, websocket.ErrBadHandshake) && resp != nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			if le := parseLoginError(uid, body); le != nil {
				return nil, le
			}
			return nil, fmt.Errorf("login of %s: handshake refused with HTTP %d: %s", uid, resp.StatusCode, firstLine(string(body)))
		}
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	ws.SetReadLimit(maxFrame)
	if d.cfg.MsgResp {
		ws.SetReadDeadline(time.Now().Add(d.cfg.Timeout))
		mt, body, err := ws.ReadMessage()
		if err != nil {
			ws.Close()
			return nil, fmt.Errorf("login of %s: no auth result: %w", uid, err)
		}
		le := parseLoginError(uid, body)
		if mt != websocket.TextMessage || le == nil {
			ws.Close()
			return nil, fmt.Errorf("login of %s: unexpected first frame %q", uid, firstLine(string(body)))
		}
		if le.Code != 0 {
			ws.Close()
			return nil, le
		}
	}
	c := &conn{d: d, user: u, uid: uid, ws: ws, h: h, pending: map[string]*pending{},
		codec: Codec{Envelope: d.cfg.Envelope, Gzip: d.cfg.Gzip}}
	ws.SetReadDeadline(time.Now().Add(d.cfg.ReadTimeout))
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(d.cfg.ReadTimeout)) })
	go c.readLoop()
	return c, nil
}

// parseLoginError reads the gateway's {"errCode","errMsg","errDlt"}; a nil
// result means the body is not such an answer.
func parseLoginError(uid string, body []byte) *LoginError {
	var r struct {
		ErrCode *int   `json:"errCode"`
		ErrMsg  string `json:"errMsg"`
		ErrDlt  string `json:"errDlt"`
	}
	if json.Unmarshal(body, &r) != nil || r.ErrCode == nil {
		return nil
	}
	return &LoginError{User: uid, Code: *r.ErrCode, Msg: r.ErrMsg, Dlt: r.ErrDlt}
}

func (c *conn) request(id int32, data []byte, cb func(*Resp, error)) error {
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
	frame, err := c.codec.EncodeReq(&Req{ReqIdentifier: id, SendID: c.uid, OperationID: incr, MsgIncr: incr, Data: data})
	if err == nil {
		c.wmu.Lock()
		c.ws.SetWriteDeadline(time.Now().Add(c.d.cfg.Timeout))
		err = c.ws.WriteMessage(websocket.BinaryMessage, frame)
		c.wmu.Unlock()
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

func respError(r *Resp) error {
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
		MsgFrom:          100, // user message
		ContentType:      101, // text
		Content:          textContent(text),
		CreateTime:       createMs,
	}
	if cv.Kind == plan.Group {
		md.SessionType, md.GroupID = 3, d.plan.GroupID(cv.Group)
	} else {
		peer := cv.Peers[0]
		if peer == m.Sender {
			peer = cv.Peers[1]
		}
		md.SessionType, md.RecvID = 1, d.users[peer]
	}
	data, err := proto.Marshal(md)
	if err != nil {
		return err
	}
	return c.request(ReqSendMsg, data, func(r *Resp, err error) {
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

var (
	contentPrefix = []byte(`{"content":"`)
	contentSuffix = []byte(`"}`)
)

// textContent is the text element JSON of contentType 101. Benchmark texts
// never need JSON escaping.
func textContent(text []byte) []byte {
	b := make([]byte, 0, len(contentPrefix)+len(text)+len(contentSuffix))
	b = append(b, contentPrefix...)
	b = append(b, text...)
	return append(b, contentSuffix...)
}

// contentText extracts the text of a text element.
func contentText(content []byte) []byte {
	if bytes.HasPrefix(content, contentPrefix) && bytes.HasSuffix(content, contentSuffix) {
		t := content[len(contentPrefix) : len(content)-len(contentSuffix)]
		if bytes.IndexByte(t, '\\') < 0 && bytes.IndexByte(t, '"') < 0 {
			return t
		}
	}
	var e struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(content, &e) == nil {
		return []byte(e.Content)
	}
	return content
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
	return c.request(ReqPullMsgByRange, data, func(r *Resp, err error) {
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
	return c.request(ReqGetNewestSeq, data, func(r *Resp, err error) {
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

// Ping implements engine.Conn with a WebSocket ping control frame.
func (c *conn) Ping() error {
	return c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.d.cfg.Timeout))
}

// Alive implements engine.Conn.
func (c *conn) Alive() bool { return !c.ended.Load() }

// Close implements engine.Conn.
func (c *conn) Close() error {
	if !c.ours.CompareAndSwap(false, true) {
		return nil
	}
	c.wmu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		time.Now().Add(time.Second))
	c.wmu.Unlock()
	return c.ws.Close()
}

func (c *conn) readLoop() {
	var (
		err  error
		resp Resp
	)
	for {
		var mt int
		var r io.Reader
		mt, r, err = c.ws.NextReader()
		if err != nil {
			break
		}
		buf := framePool.Get().(*bytes.Buffer)
		buf.Reset()
		if _, err = buf.ReadFrom(r); err != nil {
			framePool.Put(buf)
			break
		}
		c.ws.SetReadDeadline(time.Now().Add(c.d.cfg.ReadTimeout))
		if mt == websocket.BinaryMessage {
			err = c.handleFrame(buf.Bytes(), &resp)
		} // text frames: JSON pong, or the isMsgResp auth result
		framePool.Put(buf)
		if err != nil {
			break
		}
	}
	c.ws.Close()
	c.ended.Store(true)
	c.pmu.Lock()
	left := c.pending
	c.pending = nil
	c.pmu.Unlock()
	for _, p := range left {
		if p.timer.Stop() {
			p.cb(nil, errConnClosed)
		}
	}
	if c.ours.Load() {
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
func (c *conn) handleFrame(frame []byte, resp *Resp) error {
	key := frameKey(frame)
	if arrivals := c.d.frames.get(key, frame); arrivals != nil {
		for _, a := range arrivals {
			c.h.Arrive(a)
		}
		return nil
	}
	if err := c.codec.DecodeResp(frame, resp); err != nil {
		return err
	}
	switch resp.ReqIdentifier {
	case PushMsg:
		var push pb.PushMessages
		if err := proto.Unmarshal(resp.Data, &push); err != nil {
			return fmt.Errorf("decode push: %w", err)
		}
		arrivals := c.arrivals(push.Msgs, false, false)
		c.d.frames.put(key, frame, arrivals)
		for _, a := range arrivals {
			c.h.Arrive(a)
		}
	case KickOnlineMsg:
		c.kicked.Store(true)
	default:
		if p := c.take(resp.MsgIncr); p != nil {
			r := *resp
			p.cb(&r, nil)
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
				Text:     contentText(m.Content),
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
