package bench

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/load/wukongim"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// WuKongIM's floor: a binary WKProto TCP connection per user, logged in
// with the X25519 key exchange as the generator logs in. A receiver
// decodes each RECV's header, decrypts its payload into a reused buffer
// (the least that gets a reader the message: each connection has keys of
// its own, so no receiver's work serves another) without parsing it, and
// answers it with a RECVACK of its messageID and messageSeq (held up to
// the generator's ack delay and written together, as the generator
// writes them). A sender encrypts what it sends, as the server requires,
// and reads its SENDACKs. PONGs and anything else are skipped.
type wukongimFloor struct {
	f    *floor
	api  *wukongim.API
	hold time.Duration // the generator's ack delay: IM_ACK_DELAY, as its run reads it
}

func newWuKongIMFloor(f *floor) (*wukongimFloor, error) {
	hold, err := wukongim.ParseAckDelay(os.Getenv("IM_ACK_DELAY"))
	if err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	return &wukongimFloor{f: f, api: &wukongim.API{Base: f.o.API, Token: f.o.Secret, HTTP: &http.Client{Timeout: 2 * floorTimeout}},
		hold: hold}, nil
}

func (p *wukongimFloor) token(uid string) string {
	sum := md5.Sum([]byte(p.f.o.Prefix + "|" + uid))
	return hex.EncodeToString(sum[:])
}

func (p *wukongimFloor) setup(ctx context.Context, users []string, group string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(floorParallel)
	for _, id := range users {
		g.Go(func() error { return p.api.SetToken(gctx, id, p.token(id), wire.DeviceApp) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for start := 0; start < len(users); start += wukongim.Batch {
		chunk := users[start:min(start+wukongim.Batch, len(users))]
		var err error
		if start == 0 {
			err = p.api.CreateGroup(ctx, group, chunk)
		} else {
			err = p.api.AddSubscribers(ctx, group, wire.ChannelGroup, chunk)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *wukongimFloor) login(ctx context.Context, i int) (floorConn, error) {
	gw, err := gatewayOf(p.f.o.Gateway, i)
	if err != nil {
		return nil, err
	}
	uid := p.f.users[i]
	nc, err := dialFloor(ctx, gw)
	if err != nil {
		return nil, err
	}
	kp, err := wire.GenerateKey(nil)
	if err != nil {
		nc.Close()
		return nil, err
	}
	version := wire.LatestVersion
	connect, err := wire.Connect{Version: version, DeviceFlag: wire.DeviceApp, DeviceID: uid + "-floor", UID: uid,
		Token: p.token(uid), ClientTimestamp: time.Now().UnixMilli(), ClientKey: kp.PublicKeyBase64()}.Append(nil, version)
	if err == nil {
		_, err = nc.Write(connect)
	}
	var ack wire.Connack
	var buf []byte
	var n int
	if err == nil {
		buf, n, err = readAnswer(ctx, nc, func(b []byte) (int, error) {
			t, flags, body, n, err := wire.SplitFrame(b)
			if err != nil || n == 0 {
				return 0, err
			}
			if t != wire.TypeConnack {
				return 0, fmt.Errorf("expected a CONNACK, got %s", t)
			}
			ack, err = wire.DecodeConnack(flags, body, version)
			return n, err
		})
	}
	if err == nil && ack.ReasonCode != wire.ReasonSuccess {
		err = fmt.Errorf("login refused: CONNACK reason %d %s", ack.ReasonCode, ack.ReasonCode)
	}
	c := &wukongimFloorConn{uid: uid, group: p.f.group, version: ack.Version(version)}
	if err == nil && ack.ServerKey != "" {
		c.cipher, err = kp.Cipher(ack.ServerKey, ack.Salt)
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	c.f, c.hold = p.f, p.hold
	return c, c.attach(nc, c, buf[n:])
}

type wukongimFloorConn struct {
	floorBase
	uid     string
	group   string
	version uint8
	cipher  *wire.Cipher // nil: the server runs without encryption
	plain   []byte       // the last RECV's plaintext, its buffer reused
}

// OnData implements netloop.Handler: the RECVACKs go out with the flush.
func (c *wukongimFloorConn) OnData(b []byte) error { return c.feed(b, c) }

// Frame implements netloop.Framer.
func (c *wukongimFloorConn) Frame(stream []byte) (int, error) {
	t, flags, body, n, err := wire.SplitFrame(stream)
	if err != nil || n == 0 {
		return 0, err
	}
	switch t {
	case wire.TypeRecv:
		r, err := wire.DecodeRecvView(flags, body, c.version)
		if err != nil {
			return 0, err
		}
		if c.cipher != nil {
			if c.plain, err = c.cipher.AppendDecrypt(c.plain[:0], r.Payload); err != nil {
				return 0, fmt.Errorf("a RECV's payload: %w", err)
			}
		}
		c.pushes.Add(1)
		c.out, err = wire.Recvack{Flags: r.Flags, MessageID: r.MessageID, MessageSeq: r.MessageSeq}.Append(c.out, c.version)
		return n, err
	case wire.TypeSendack:
		a, err := wire.DecodeSendack(flags, body, c.version)
		if err != nil {
			return 0, err
		}
		c.f.answered(a.ReasonCode == wire.ReasonSuccess)
	case wire.TypeDisconnect:
		return 0, errors.New("the server sent DISCONNECT")
	}
	return n, nil
}

func (c *wukongimFloorConn) ping() error { return c.st.Write(wire.AppendPing(nil), floorTimeout) }

func (c *wukongimFloorConn) send(n int, text []byte) error {
	plain := append(append([]byte(`{"type":1,"content":"`), text...), `"}`...) // the SDKs' text content
	s := wire.Send{Flags: wire.FlagRedDot, ClientSeq: uint32(n + 1), ClientMsgNo: c.uid + "-" + strconv.Itoa(n),
		ChannelID: c.group, ChannelType: wire.ChannelGroup, Payload: plain}
	if c.cipher != nil {
		s.Payload = c.cipher.Encrypt(plain)
		s.MsgKey = c.cipher.MsgKey(s.AppendSign(nil))
	}
	b, err := s.Append(nil, c.version)
	if err != nil {
		return err
	}
	return c.st.Write(b, floorTimeout)
}
