package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/wildfire"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// Wildfire's floor: an MQTT connection per user, its session from the
// admin API's get_token, logged in as the generator logs in (level 4,
// keepAlive 60). Wildfire delivers by notify and pull, and the pull is part
// of receiving: a receiver reads each MN's head and, one pull at a time,
// asks MP for everything after the newest number it holds, then reads the
// answer's current and head (decrypting it: the next pull needs them)
// without decoding its messages, and pulls again while the server has more
// or more was notified meanwhile. A sender reads the PUBACKs of its MSes.
type wildfireFloor struct {
	f     *floor
	admin *wildfire.Admin
}

// keepAlive is CONNECT's, the driver's default: the server drops a
// connection silent 1.5 times this.
const wildfireKeepAlive = 60

// pullID is the packet id of a receiver's MP: one is under way at a time.
const pullID = 1

func newWildfireFloor(f *floor) *wildfireFloor {
	return &wildfireFloor{f: f, admin: &wildfire.Admin{Base: f.o.API, Secret: f.o.Secret, HTTP: &http.Client{Timeout: 2 * floorTimeout}}}
}

func (p *wildfireFloor) setup(ctx context.Context, users []string, group string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(floorParallel)
	for _, id := range users {
		g.Go(func() error { return p.admin.CreateUser(gctx, id) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for start := 0; start < len(users); start += wildfire.Batch {
		chunk := users[start:min(start+wildfire.Batch, len(users))]
		var err error
		if start == 0 {
			err = p.admin.CreateGroup(ctx, group, chunk)
		} else {
			err = p.admin.AddMembers(ctx, group, users[0], chunk)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *wildfireFloor) login(ctx context.Context, i int) (floorConn, error) {
	gw, err := gatewayOf(p.f.o.Gateway, i)
	if err != nil {
		return nil, err
	}
	uid := p.f.users[i]
	clientID := "c_" + uid
	tok, err := p.admin.GetToken(ctx, uid, clientID, int(wire.PlatformLinux))
	if err != nil {
		return nil, err
	}
	t, err := wire.ParseIMToken(tok)
	if err != nil {
		return nil, err
	}
	cipher, err := wire.NewCipher(t.Secret)
	if err != nil {
		return nil, err
	}
	nc, err := dialFloor(ctx, gw)
	if err != nil {
		return nil, err
	}
	connect, err := wire.NewConnect(clientID, uid, wire.ConnectPassword(cipher, t.DESToken, wire.HourNow()), wildfireKeepAlive).Append(nil)
	if err == nil {
		_, err = nc.Write(connect)
	}
	var ack wire.Connack
	var buf []byte
	var n int
	if err == nil {
		buf, n, err = readAnswer(ctx, nc, func(b []byte) (int, error) {
			t, _, body, n, err := wire.SplitFrame(b)
			if err != nil || n == 0 {
				return 0, err
			}
			if t != wire.TypeConnack {
				return 0, fmt.Errorf("expected a CONNACK, got %s", t)
			}
			ack, err = wire.DecodeConnack(body)
			return n, err
		})
	}
	if err == nil && ack.ReturnCode != wire.ConnackAccepted {
		err = fmt.Errorf("login refused: CONNACK code %d %s", ack.ReturnCode, ack.ReturnCode)
	}
	var payload *pb.ConnectAckPayload
	if err == nil {
		payload, err = ack.Ack()
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	c := &wildfireFloorConn{uid: uid, group: p.f.group, cipher: cipher, head: payload.GetMsgHead(), nextID: pullID}
	c.f = p.f
	return c, c.attach(nc, c, buf[n:])
}

type wildfireFloorConn struct {
	floorBase
	uid    string
	group  string
	cipher *wire.Cipher

	// The loop goroutine's: the newest number pulled and notified, and the
	// pull under way.
	head, notified, from int64
	pulling              bool
	fields               [4]int64

	nextID uint16 // its MS packet ids
}

// OnData implements netloop.Handler: what one read calls for goes out in
// one write.
func (c *wildfireFloorConn) OnData(b []byte) error { return c.feed(b, c) }

// Frame implements netloop.Framer.
func (c *wildfireFloorConn) Frame(stream []byte) (int, error) {
	t, flags, body, n, err := wire.SplitFrame(stream)
	if err != nil || n == 0 {
		return 0, err
	}
	switch t {
	case wire.TypePublish:
		err = c.onPush(flags, body)
	case wire.TypePuback:
		err = c.onPuback(body)
	}
	return n, err
}

func (c *wildfireFloorConn) onPush(flags uint8, body []byte) error {
	p, err := wire.DecodePublish(flags, body)
	if err != nil {
		return err
	}
	switch p.Topic {
	case wire.TopicNotifyMessage:
		c.pushes.Add(1)
		clear(c.fields[:])
		if _, err := protoTop(p.Payload, c.fields[:]); err != nil {
			return fmt.Errorf("MN: %w", err)
		}
		if c.fields[1] != int64(wire.PullNormal) {
			return nil
		}
		c.notified = max(c.notified, c.fields[2])
		if !c.pulling {
			return c.pull()
		}
	case wire.TopicNotifyOffline:
		return errors.New("kicked (ROFL)")
	}
	return nil
}

// pull asks for everything after the newest number held.
func (c *wildfireFloorConn) pull() error {
	c.pulling, c.from = true, c.head
	plain, err := proto.Marshal(&pb.PullMessageRequest{Id: proto.Int64(c.head), Type: proto.Int32(wire.PullNormal)})
	if err == nil {
		c.out, err = wire.AppendRequest(c.out, wire.TopicPullMessage, pullID, c.cipher, wire.HourNow(), plain)
	}
	return err
}

func (c *wildfireFloorConn) onPuback(body []byte) error {
	a, err := wire.DecodePuback(body)
	if err != nil {
		return err
	}
	if a.PacketID != pullID {
		c.f.answered(a.Code.OK())
		return nil
	}
	if !a.Code.OK() {
		return fmt.Errorf("MP refused: code %d %s", a.Code, a.Code)
	}
	raw, err := a.Result(c.cipher, wire.HourNow())
	if err != nil {
		return err
	}
	clear(c.fields[:])
	msgs, err := protoTop(raw, c.fields[:])
	if err != nil {
		return fmt.Errorf("MP result: %w", err)
	}
	c.pulled.Add(int64(msgs))
	cur, serverHead := c.fields[2], c.fields[3]
	c.head = max(c.head, cur)
	// An answer that brought nothing new ends the chain: the next MN
	// starts another.
	if cur > c.from && (cur < serverHead || c.notified > c.head) {
		return c.pull()
	}
	c.pulling = false
	return nil
}

func (c *wildfireFloorConn) ping() error { return c.st.Write(wire.AppendPingreq(nil), floorTimeout) }

func (c *wildfireFloorConn) send(_ int, text []byte) error {
	plain, err := proto.Marshal(&pb.Message{
		Conversation: &pb.Conversation{Type: proto.Int32(wire.ConvGroup), Target: proto.String(c.group), Line: proto.Int32(0)},
		FromUser:     proto.String(c.uid),
		Content: &pb.MessageContent{Type: proto.Int32(wire.ContentText), SearchableContent: proto.String(string(text)),
			PersistFlag: proto.Int32(wire.PersistStoreCount)},
	})
	if err != nil {
		return err
	}
	if c.nextID++; c.nextID == 0 {
		c.nextID = pullID + 1
	}
	b, err := wire.AppendRequest(nil, wire.TopicSendMessage, c.nextID, c.cipher, wire.HourNow(), plain)
	if err != nil {
		return err
	}
	return c.st.Write(b, floorTimeout)
}

// protoTop reads the top level of a protobuf message: its varint fields
// into v by field number (those numbered below len(v)), and how many
// length-delimited fields numbered 1 it holds, without decoding them.
func protoTop(b []byte, v []int64) (ones int, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.VarintType {
			x, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return 0, protowire.ParseError(m)
			}
			if int(num) < len(v) {
				v[num] = int64(x)
			}
			b = b[m:]
			continue
		}
		if num == 1 && typ == protowire.BytesType {
			ones++
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return 0, protowire.ParseError(m)
		}
		b = b[m:]
	}
	return ones, nil
}
