package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/framecache"
	"github.com/imbench/imbench/load/openim"
	"github.com/imbench/imbench/load/ws"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// OpenIM's floor: a WebSocket per user, logged in as the generator logs in
// (gob envelope, compression=gzip), reading binary frames. A push needs no
// answer, but every user sends in turn and gets the answers to its sends
// on the same socket, so what it reads is decoded to tell an answer (and a
// refusal) from a push: once per distinct frame, as the generator decodes
// it, since a group's push reaches every member as the same bytes.
// Heartbeats are WebSocket pings, and pings from the server are answered.
type openimFloor struct {
	f      *floor
	api    *openim.API
	codec  wire.Codec
	tokens []string
	pushes framecache.Cache[struct{}] // the push frames decoded lately
}

func newOpenIMFloor(f *floor) *openimFloor {
	return &openimFloor{f: f, codec: wire.Codec{Envelope: wire.Gob, Gzip: true},
		api: &openim.API{Base: f.o.API, Secret: f.o.Secret, AdminID: f.o.Admin, HTTP: &http.Client{Timeout: 2 * floorTimeout}}}
}

func (p *openimFloor) setup(ctx context.Context, users []string, group string) error {
	if p.api.AdminID == "" {
		p.api.AdminID = "imAdmin"
	}
	admin, err := p.api.AdminToken(ctx)
	if err != nil {
		return err
	}
	if _, err := p.api.RegisterUsers(ctx, admin, users); err != nil {
		return err
	}
	if _, err := p.api.CreateGroup(ctx, admin, group, users[0], users); err != nil {
		return err
	}
	p.tokens = make([]string, len(users))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(floorParallel)
	for i, id := range users {
		g.Go(func() (err error) {
			p.tokens[i], err = p.api.UserToken(gctx, admin, id, wire.PlatformAndroid)
			return err
		})
	}
	return g.Wait()
}

func (p *openimFloor) login(ctx context.Context, i int) (floorConn, error) {
	gw, err := gatewayOf(p.f.o.Gateway, i)
	if err != nil {
		return nil, err
	}
	uid := p.f.users[i]
	q := url.Values{}
	q.Set("sendID", uid)
	q.Set("token", p.tokens[i])
	q.Set("platformID", strconv.Itoa(wire.PlatformAndroid))
	q.Set("operationID", "floor-login-"+uid)
	q.Set("isBackground", "false")
	q.Set("sdkType", p.codec.Envelope.SDKType())
	q.Set("compression", "gzip")
	u, err := url.Parse(gw.String() + "/?" + q.Encode())
	if err != nil {
		return nil, err
	}
	nc, err := dialFloor(ctx, u)
	if err != nil {
		return nil, err
	}
	rest, err := ws.Handshake(ctx, nc, u, floorTimeout)
	if err != nil {
		nc.Close()
		return nil, err
	}
	c := &openimFloorConn{p: p, uid: uid}
	c.f = p.f
	c.rd.Max = floorMaxFrame
	return c, c.attach(nc, c, rest)
}

type openimFloorConn struct {
	floorBase
	p    *openimFloor
	uid  string
	rd   ws.Reader
	resp wire.Resp // reused
}

// OnData implements netloop.Handler.
func (c *openimFloorConn) OnData(b []byte) error { return c.rd.Feed(b, c.onMessage) }

func (c *openimFloorConn) onMessage(op ws.Op, p []byte) error {
	switch op {
	case ws.OpBinary:
		key := framecache.Key(p)
		if _, seen := c.p.pushes.Get(key, p); seen {
			c.pushes.Add(1)
			return nil
		}
		if err := c.p.codec.DecodeResp(p, &c.resp); err != nil {
			return err
		}
		switch c.resp.ReqIdentifier {
		case wire.PushMsg:
			c.p.pushes.Put(key, p, struct{}{})
			c.pushes.Add(1)
		case wire.ReqSendMsg:
			c.f.answered(c.resp.ErrCode == 0)
		}
	case ws.OpPing:
		return c.st.Write(ws.AppendFrame(nil, ws.OpPong, p), floorTimeout)
	case ws.OpClose:
		return fmt.Errorf("the server closed the WebSocket")
	}
	return nil
}

func (c *openimFloorConn) ping() error {
	return c.st.Write(ws.AppendFrame(nil, ws.OpPing, nil), floorTimeout)
}

func (c *openimFloorConn) send(n int, text []byte) error {
	id := openim.ClientMsgID(c.p.f.group, c.uid, uint32(n)) // the generator's: 32 hex digits gzip cannot shorten
	data, err := proto.Marshal(&pb.MsgData{SendID: c.uid, ClientMsgID: id, SenderPlatformID: wire.PlatformAndroid,
		MsgFrom: wire.MsgFromUser, ContentType: wire.ContentTypeText, Content: wire.TextContent(text),
		CreateTime: time.Now().UnixMilli(), SessionType: wire.SessionGroup, GroupID: c.p.f.group})
	if err != nil {
		return err
	}
	incr := c.uid + "_" + strconv.Itoa(n)
	frame, err := c.p.codec.EncodeReq(&wire.Req{ReqIdentifier: wire.ReqSendMsg, SendID: c.uid, OperationID: incr, MsgIncr: incr, Data: data})
	if err != nil {
		return err
	}
	return c.st.Write(ws.AppendFrame(nil, ws.OpBinary, frame), floorTimeout)
}
