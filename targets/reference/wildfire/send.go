package wildfire

import (
	"crypto/rand"
	"encoding/binary"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// payloadMagic marks this front end's payloads: a message another front end
// of the process stored is not taken for one. After it, the payload is the
// pb.Message a pull gives back, but for server_timestamp (the core's
// Message.Time, known only once stored): conversation and content as the
// sender sent them, from_user the sender, message_id the messageUid.
var payloadMagic = [3]byte{'w', 'f', 1}

func ours(m *core.Message) bool {
	return len(m.Payload) >= len(payloadMagic) && [3]byte(m.Payload[:3]) == payloadMagic
}

// stored returns the encoded pb.Message fields a payload keeps.
func stored(m *core.Message) []byte { return m.Payload[len(payloadMagic):] }

// request is what an MS body holds that the server reads: the raw
// conversation and content, as they are given back.
type request struct {
	conv        []byte
	convType    int32
	target      string
	content     []byte
	contentType int32
}

// parseMessage reads an MS body, a pb.Message, checking the fields proto2
// requires (conversation's type, target and line, from_user, content's
// type): false for a body the server cannot parse (code 2).
func parseMessage(b []byte) (request, bool) {
	var r request
	var from, convOK, contentOK bool
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return r, false
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return r, false
			}
			r.conv, b = v, b[n:]
			if r.convType, r.target, convOK = parseConversation(v); !convOK {
				return r, false
			}
		case num == 2 && typ == protowire.BytesType:
			_, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return r, false
			}
			b, from = b[n:], true
		case num == 3 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return r, false
			}
			r.content, b = v, b[n:]
			if r.contentType, contentOK = fieldVarint(v, 1); !contentOK {
				return r, false
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return r, false
			}
			b = b[n:]
		}
	}
	return r, from && convOK && contentOK
}

func parseConversation(b []byte) (typ int32, target string, ok bool) {
	var hasType, hasTarget, hasLine bool
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", false
		}
		b = b[n:]
		switch {
		case (num == 1 || num == 3) && wt == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, "", false
			}
			b = b[n:]
			if num == 1 {
				typ, hasType = int32(v), true
			} else {
				hasLine = true
			}
		case num == 2 && wt == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, "", false
			}
			target, hasTarget, b = string(v), true, b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, wt, b)
			if n < 0 {
				return 0, "", false
			}
			b = b[n:]
		}
	}
	return typ, target, hasType && hasTarget && hasLine
}

// fieldVarint finds varint field num of a message; ok is false when it is
// absent or the message does not parse.
func fieldVarint(b []byte, num protowire.Number) (int32, bool) {
	var val int32
	found := false
	for len(b) > 0 {
		n, wt, k := protowire.ConsumeTag(b)
		if k < 0 {
			return 0, false
		}
		b = b[k:]
		if n == num && wt == protowire.VarintType {
			v, k := protowire.ConsumeVarint(b)
			if k < 0 {
				return 0, false
			}
			val, found, b = int32(v), true, b[k:]
			continue
		}
		k = protowire.ConsumeFieldValue(n, wt, b)
		if k < 0 {
			return 0, false
		}
		b = b[k:]
	}
	return val, found
}

// clientForbidden reports the content types a client may not send (§5.5).
func clientForbidden(t int32) bool {
	return t == wire.ContentRecall || t == 81 || (t >= wire.ContentClientForbidFirst && t <= wire.ContentClientForbidLast)
}

// onSend stores one message (wildfire.md §5.5, §14): the sender is the
// connection's user whatever from_user says; private (0), group (1) and
// chatroom (2) conversations are served, any other is 251, as a content
// type a client may not send. The result is messageUid ‖ timestamp, to be
// answered late by the ack-late fault.
func (c *conn) onSend(plain []byte) (code wire.ErrorCode, result []byte, late time.Duration) {
	r, ok := parseMessage(plain)
	if !ok {
		return wire.CodeInvalidData, nil, 0
	}
	if clientForbidden(r.contentType) {
		return wire.CodeInvalidParameter, nil, 0
	}
	var key core.ConvKey
	switch r.convType {
	case wire.ConvPrivate:
		key = core.DirectKey(c.uid, r.target)
	case wire.ConvGroup:
		key = core.GroupKey(r.target)
	case wire.ConvChatroom:
		key = core.RoomKey(r.target)
	default:
		return wire.CodeInvalidParameter, nil, 0
	}
	uid := c.f.ids.next()
	m, err := c.f.c.Send(&core.Message{Conv: key, Sender: c.uid, ClientID: c.s.clientID, Payload: encodeStored(&r, c.uid, uid)})
	if err != nil {
		return sendCode(err, key.Kind), nil, 0
	}
	c.plain = wire.AppendSendResult(c.plain[:0], uid, m.Time)
	return wire.CodeSuccess, c.plain, m.AckLate
}

// encodeStored is the payload of a message: the magic, then pb.Message's
// fields 1–4.
func encodeStored(r *request, sender string, uid int64) []byte {
	n := len(payloadMagic) +
		1 + protowire.SizeBytes(len(r.conv)) +
		1 + protowire.SizeBytes(len(sender)) +
		1 + protowire.SizeBytes(len(r.content)) +
		1 + protowire.SizeVarint(uint64(uid))
	b := make([]byte, 0, n)
	b = append(b, payloadMagic[:]...)
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, r.conv)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, sender)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendBytes(b, r.content)
	b = protowire.AppendTag(b, 4, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(uid))
}

// onChatroom joins (CRJ) or quits (CRQ) the chatroom an IDBuf names: one
// chatroom/create made, else 253.
func (c *conn) onChatroom(plain []byte, join bool) wire.ErrorCode {
	id, ok := fieldString(plain, 1)
	if !ok {
		return wire.CodeInvalidData
	}
	c.f.mu.RLock()
	exists := c.f.rooms[id]
	c.f.mu.RUnlock()
	if !exists {
		return wire.CodeNotExist
	}
	var err error
	if join {
		err = c.f.c.JoinRoom(id, c.uid)
	} else {
		err = c.f.c.LeaveRoom(id, c.uid)
	}
	if err != nil {
		return sendCode(err, core.Room)
	}
	return wire.CodeSuccess
}

// fieldString finds string field num of a message.
func fieldString(b []byte, num protowire.Number) (string, bool) {
	var val []byte
	found := false
	for len(b) > 0 {
		n, wt, k := protowire.ConsumeTag(b)
		if k < 0 {
			return "", false
		}
		b = b[k:]
		if n == num && wt == protowire.BytesType {
			v, k := protowire.ConsumeBytes(b)
			if k < 0 {
				return "", false
			}
			val, found, b = v, true, b[k:]
			continue
		}
		k = protowire.ConsumeFieldValue(n, wt, b)
		if k < 0 {
			return "", false
		}
		b = b[k:]
	}
	return string(val), found
}

// messageUids are snowflake-like, as the real server's: milliseconds since
// an epoch, 10 node bits, 12 bits of sequence within the millisecond,
// above every earlier one of the front end.
const (
	nodeBits = 10
	seqBits  = 12
	nodeMask = 1<<nodeBits - 1
)

var idEpoch = time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

type idGen struct {
	node int64
	last atomic.Int64
}

func (g *idGen) init() {
	var b [8]byte
	rand.Read(b[:])
	g.node = int64(binary.LittleEndian.Uint64(b[:]) & nodeMask)
}

// next returns an id above every earlier one; a burst of more than 4096
// in a millisecond borrows from the next milliseconds.
func (g *idGen) next() int64 {
	for {
		old := g.last.Load()
		id := (time.Now().UnixMilli()-idEpoch)<<(nodeBits+seqBits) | g.node<<seqBits
		if id <= old {
			id = old + 1
		}
		if g.last.CompareAndSwap(old, id) {
			return id
		}
	}
}
