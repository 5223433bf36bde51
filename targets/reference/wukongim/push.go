package wukongim

import (
	"sync"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// pushInfo is what this front end keeps in a push's slot: the message
// decoded once for every recipient on this process. Without encryption the
// RECV frames are the same for every recipient of one version and
// viewpoint, and are made once each; with it, each connection encrypts and
// signs with its own key.
type pushInfo struct {
	err    error
	s      stored
	conv   core.ConvKey
	sender string
	msgNo  string
	seq    uint32
	ts     int32
	plain  [wire.LatestVersion + 1][2]struct { // by version, and whether the viewer is the sender
		once sync.Once
		b    []byte
		err  error
	}
}

type slotKey struct{}

func pushOf(p *core.Push) *pushInfo { return p.SlotFor(slotKey{}, newPushInfo).(*pushInfo) }

func newPushInfo(m *core.Message) any {
	s, err := decodeStored(m.Payload)
	return &pushInfo{err: err, s: s, conv: m.Conv, sender: m.Sender, msgNo: m.ClientID,
		seq: uint32(m.Seq), ts: int32(m.Time / 1000)}
}

// recv is the message's RECV as viewer sees it, payload and msgKey not yet
// set: RedDot cleared for the sender's own devices, the person channel
// named by the other party.
func (pi *pushInfo) recv(viewer string) wire.Recv {
	flags := pi.s.Flags & headerFlags
	if viewer == pi.sender {
		flags &^= wire.FlagRedDot
	}
	ch, typ := channelOf(pi.conv, viewer)
	return wire.Recv{Flags: flags, Setting: pi.s.Setting, FromUID: pi.sender, ChannelID: ch, ChannelType: typ,
		Expire: pi.s.Expire, ClientMsgNo: pi.msgNo, MessageID: pi.s.MessageID, MessageSeq: pi.seq,
		Timestamp: pi.ts, Topic: pi.s.Topic}
}

// plainFrame is the unencrypted RECV for a version and viewpoint, made once.
func (pi *pushInfo) plainFrame(version uint8, viewer string) ([]byte, error) {
	self := 0
	if viewer == pi.sender {
		self = 1
	}
	v := &pi.plain[min(version, wire.LatestVersion)][self]
	v.once.Do(func() {
		r := pi.recv(viewer)
		r.Payload = pi.s.Plain
		v.b, v.err = r.Append(nil, version)
	})
	return v.b, v.err
}

// appendPush adds p's RECV for this connection to the batch: none for the
// connection that sent it, nor for a message another front end stored.
// A persisted one waits for its RECVACK in the retry queue.
func (c *conn) appendPush(o *out, p *core.Push) {
	pi := pushOf(p)
	if pi.err != nil || pi.s.Origin == c.id {
		return
	}
	start := len(o.buf)
	var err error
	if c.cipher == nil {
		var b []byte
		if b, err = pi.plainFrame(c.version, c.uid); err == nil {
			o.buf = append(o.buf, b...)
		}
	} else {
		r := pi.recv(c.uid)
		o.payload = c.cipher.AppendEncrypt(o.payload[:0], pi.s.Plain)
		r.Payload = o.payload
		o.sign = r.AppendSign(o.sign[:0])
		r.MsgKey = c.cipher.MsgKey(o.sign)
		o.buf, err = r.Append(o.buf, c.version)
	}
	if err != nil {
		c.g.f.Log.Warn("RECV not encodable", "uid", c.uid, "err", err)
		return
	}
	o.pushes++
	o.recvs++
	o.frames++
	o.msgBytes += len(pi.s.Plain)
	if pi.s.Flags&wire.FlagNoPersist == 0 {
		c.track(pi.s.MessageID, pi.seq, o.buf[start:])
	}
}
