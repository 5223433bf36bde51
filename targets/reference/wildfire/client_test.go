package wildfire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// A raw Wildfire client written with wire/wildfire alone.

var nonceNo atomic.Int64

// post signs and posts an admin call, decoding the envelope into out.
func post(t testing.TB, tg *reftest.WFTarget, path string, req, out any) {
	t.Helper()
	body, _ := json.Marshal(req)
	r, _ := http.NewRequest(http.MethodPost, tg.AdminURL+path, bytes.NewReader(body))
	wire.SetAdminHeaders(r.Header, strconv.FormatInt(nonceNo.Add(1), 10), tg.Secret, time.Now().UnixMilli())
	do(t, r, out)
}

func do(t testing.TB, r *http.Request, out any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s", r.URL.Path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v in %s", r.URL.Path, err, b)
	}
}

// creds are a get_token's, parsed.
type creds struct {
	user, clientID string
	tok            wire.IMToken
	cipher         *wire.Cipher
}

func getToken(t testing.TB, tg *reftest.WFTarget, user, clientID string, platform int32) creds {
	t.Helper()
	var res wire.APIResult[wire.GetTokenResult]
	post(t, tg, wire.PathUserGetToken, wire.GetTokenReq{UserID: user, ClientID: clientID, Platform: platform}, &res)
	if !res.OK() || res.Result.UserID != user {
		t.Fatalf("get_token %s: %+v", user, res)
	}
	tok, err := wire.ParseIMToken(res.Result.Token)
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.NewCipher(tok.Secret)
	if err != nil {
		t.Fatal(err)
	}
	return creds{user: user, clientID: clientID, tok: tok, cipher: c}
}

func createGroup(t testing.TB, tg *reftest.WFTarget, id, owner string, members ...string) {
	t.Helper()
	var ms []wire.GroupMemberJSON
	for _, m := range members {
		ms = append(ms, wire.GroupMemberJSON{MemberID: m})
	}
	var res wire.APIResult[wire.CreateGroupResult]
	post(t, tg, wire.PathGroupCreate, wire.CreateGroupReq{Operator: owner,
		Group: wire.GroupJSON{GroupInfo: wire.GroupInfoJSON{TargetID: id, Name: id, Type: wire.GroupRestricted}, Members: ms}}, &res)
	if !res.OK() || res.Result.GroupID != id {
		t.Fatalf("group create: %+v", res)
	}
}

type client struct {
	t       testing.TB
	nc      net.Conn
	cr      creds
	buf     []byte
	pid     uint16
	pending []wire.Packet // read while waiting for something else
}

func dial(t testing.TB, tg *reftest.WFTarget) *client {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimPrefix(tg.MQTTAddr, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc}
}

func (c *client) raw(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *client) write(ps ...wire.Packet) {
	c.t.Helper()
	var b []byte
	for _, p := range ps {
		var err error
		if b, err = p.Append(b); err != nil {
			c.t.Fatal(err)
		}
	}
	c.raw(b)
}

// read returns the next frame off the wire.
func (c *client) read(timeout time.Duration) (wire.Packet, error) {
	deadline := time.Now().Add(timeout)
	for {
		p, n, err := wire.DecodeFrame(c.buf)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			c.buf = c.buf[n:]
			return p, nil
		}
		var b [8192]byte
		c.nc.SetReadDeadline(deadline)
		k, err := c.nc.Read(b[:])
		c.buf = append(c.buf, b[:k]...)
		if k == 0 && err != nil {
			return nil, err
		}
	}
}

// next returns the next frame, those set aside first.
func (c *client) next(timeout time.Duration) (wire.Packet, error) {
	if len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		return p, nil
	}
	return c.read(timeout)
}

// wait returns the first frame match takes, setting the others aside.
func (c *client) wait(what string, timeout time.Duration, match func(wire.Packet) bool) wire.Packet {
	c.t.Helper()
	for i, p := range c.pending {
		if match(p) {
			c.pending = append(c.pending[:i:i], c.pending[i+1:]...)
			return p
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		p, err := c.read(time.Until(deadline))
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", what, err)
		}
		if match(p) {
			return p
		}
		c.pending = append(c.pending, p)
	}
}

func (c *client) connectWith(cn wire.Connect) wire.Connack {
	c.t.Helper()
	c.write(cn)
	p, err := c.read(5 * time.Second)
	if err != nil {
		c.t.Fatalf("CONNACK: %v", err)
	}
	a, ok := p.(wire.Connack)
	if !ok {
		c.t.Fatalf("got %T, want CONNACK", p)
	}
	return a
}

// connect logs in with cr at level 4, keepAlive 60.
func (c *client) connect(cr creds) wire.Connack {
	c.t.Helper()
	c.cr = cr
	return c.connectWith(wire.NewConnect(cr.clientID, cr.user, wire.ConnectPassword(cr.cipher, cr.tok.DESToken, wire.HourNow()), 60))
}

// online gets a token for user (clientId "c-"+user, Linux) and logs in.
func online(t testing.TB, tg *reftest.WFTarget, user string) (*client, *pb.ConnectAckPayload) {
	t.Helper()
	c := dial(t, tg)
	a := c.connect(getToken(t, tg, user, "c-"+user, wire.PlatformLinux))
	if a.ReturnCode != wire.ConnackAccepted {
		t.Fatalf("%s: CONNACK %s", user, a.ReturnCode)
	}
	ack, err := a.Ack()
	if err != nil {
		t.Fatal(err)
	}
	return c, ack
}

// request sends a QoS 1 request and returns its packet id.
func (c *client) request(topic string, body []byte) uint16 {
	c.t.Helper()
	c.pid++
	b, err := wire.AppendRequest(nil, topic, c.pid, c.cr.cipher, wire.HourNow(), body)
	if err != nil {
		c.t.Fatal(err)
	}
	c.raw(b)
	return c.pid
}

func (c *client) requestPB(topic string, m proto.Message) uint16 {
	c.t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.request(topic, b)
}

// puback waits for the answer to id, returning its code and plaintext.
func (c *client) puback(id uint16) (wire.ErrorCode, []byte) {
	c.t.Helper()
	p := c.wait("PUBACK "+strconv.Itoa(int(id)), 5*time.Second, func(p wire.Packet) bool {
		a, ok := p.(wire.Puback)
		return ok && a.PacketID == id
	}).(wire.Puback)
	res, err := p.Result(c.cr.cipher, wire.HourNow())
	if err != nil {
		c.t.Fatalf("PUBACK %d result: %v", id, err)
	}
	return p.Code, res
}

func textMessage(convType int32, target, text string) *pb.Message {
	return &pb.Message{Conversation: &pb.Conversation{Type: proto.Int32(convType), Target: proto.String(target), Line: proto.Int32(0)},
		FromUser: proto.String("anyone"), Content: &pb.MessageContent{Type: proto.Int32(wire.ContentText),
			SearchableContent: proto.String(text), PersistFlag: proto.Int32(wire.PersistStoreCount)}}
}

// send sends a text and returns the PUBACK's code and messageUid.
func (c *client) send(convType int32, target, text string) (wire.ErrorCode, int64) {
	c.t.Helper()
	code, res := c.puback(c.requestPB(wire.TopicSendMessage, textMessage(convType, target, text)))
	if code != wire.CodeSuccess {
		return code, 0
	}
	uid, ts, err := wire.ParseSendResult(res)
	if err != nil || uid <= 0 || ts <= 0 {
		c.t.Fatalf("MS result %x: %v", res, err)
	}
	return code, uid
}

func (c *client) mustSend(convType int32, target, text string) int64 {
	c.t.Helper()
	code, uid := c.send(convType, target, text)
	if code != wire.CodeSuccess {
		c.t.Fatalf("MS %q: code %s", text, code)
	}
	return uid
}

func isMN(p wire.Packet) bool {
	pub, ok := p.(wire.Publish)
	return ok && pub.Topic == wire.TopicNotifyMessage
}

// notify waits for the next MN.
func (c *client) notify(timeout time.Duration) *pb.NotifyMessage {
	c.t.Helper()
	p := c.wait("MN", timeout, isMN).(wire.Publish)
	if p.QoS != 0 || p.PacketID != 0 {
		c.t.Fatalf("MN %+v: want QoS 0", p)
	}
	var n pb.NotifyMessage
	if err := proto.Unmarshal(p.Payload, &n); err != nil {
		c.t.Fatal(err)
	}
	return &n
}

// noNotify checks that no MN comes within d.
func (c *client) noNotify(d time.Duration) {
	c.t.Helper()
	for _, p := range c.pending {
		if isMN(p) {
			c.t.Fatalf("unexpected MN %+v", p)
		}
	}
	deadline := time.Now().Add(d)
	for {
		p, err := c.read(time.Until(deadline))
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return
			}
			c.t.Fatalf("while no MN is due: %v", err)
		}
		if isMN(p) {
			c.t.Fatalf("unexpected MN %+v", p)
		}
		c.pending = append(c.pending, p)
	}
}

func (c *client) pull(id int64, typ int32) *pb.PullMessageResult {
	c.t.Helper()
	code, res := c.puback(c.requestPB(wire.TopicPullMessage, &pb.PullMessageRequest{Id: proto.Int64(id), Type: proto.Int32(typ)}))
	if code != wire.CodeSuccess {
		c.t.Fatalf("MP: code %s", code)
	}
	var r pb.PullMessageResult
	if err := proto.Unmarshal(res, &r); err != nil {
		c.t.Fatal(err)
	}
	return &r
}

// texts lists a pull's messages as "sender:text".
func texts(r *pb.PullMessageResult) string {
	var out []string
	for _, m := range r.GetMessage() {
		out = append(out, m.GetFromUser()+":"+m.GetContent().GetSearchableContent())
	}
	return fmt.Sprint(out)
}

// closedWithin reports whether the server closes the connection within d,
// whatever it writes first.
func (c *client) closedWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	var b [4096]byte
	for {
		c.nc.SetReadDeadline(deadline)
		_, err := c.nc.Read(b[:])
		if err == nil {
			continue
		}
		var ne net.Error
		return !(errors.As(err, &ne) && ne.Timeout())
	}
}
