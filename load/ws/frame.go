package ws

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
)

// Op is a frame opcode.
type Op byte

// Opcodes of RFC 6455 section 5.2.
const (
	OpContinuation Op = 0x0
	OpText         Op = 0x1
	OpBinary       Op = 0x2
	OpClose        Op = 0x8
	OpPing         Op = 0x9
	OpPong         Op = 0xA
)

func (o Op) control() bool { return o&0x8 != 0 }

// ErrTooLarge is a frame or message longer than the reader's limit.
var ErrTooLarge = errors.New("websocket: message larger than the read limit")

// Reader reassembles messages from bytes fed in pieces of any size. Between
// calls it keeps only an unfinished frame or message, so an idle
// connection's reader holds no buffer.
type Reader struct {
	Max int // largest message accepted; 0: 1 MiB

	part  []byte // an incomplete frame carried over to the next Feed
	msg   []byte // the fragments so far of a message in progress
	msgOp Op
}

// Feed parses b and calls fn for each complete message (text, binary) and
// each control frame (close, ping, pong), in order. The payload is only
// valid during the call. An error from fn stops the parsing and is returned.
func (r *Reader) Feed(b []byte, fn func(op Op, payload []byte) error) error {
	carried := len(r.part) > 0
	if carried {
		r.part = append(r.part, b...) // the frame's full size was reserved
		b = r.part
	}
	for len(b) > 0 {
		fin, op, payload, size, need, err := r.parse(b)
		if err != nil {
			r.part = nil
			return err
		}
		if size == 0 { // incomplete: keep it for the next Feed
			if carried {
				r.part = r.part[:copy(r.part, b)]
			} else {
				r.part = append(make([]byte, 0, max(need, len(b))), b...)
			}
			return nil
		}
		b = b[size:]
		if err := r.frame(fin, op, payload, fn); err != nil {
			r.part = nil
			return err
		}
	}
	r.part = nil
	return nil
}

// parse reads the frame at the start of b. size 0 means b holds only part
// of it; need is then the frame's whole size, if its header is in b.
func (r *Reader) parse(b []byte) (fin bool, op Op, payload []byte, size, need int, err error) {
	const headMax = 14
	if len(b) < 2 {
		return false, 0, nil, 0, headMax, nil
	}
	fin, op = b[0]&0x80 != 0, Op(b[0]&0x0F)
	if b[0]&0x70 != 0 {
		return false, 0, nil, 0, 0, errors.New("websocket: reserved bits set without an extension")
	}
	if b[1]&0x80 != 0 {
		return false, 0, nil, 0, 0, errors.New("websocket: the server masked a frame")
	}
	n, head := uint64(b[1]&0x7F), 2
	switch n {
	case 126:
		if len(b) < 4 {
			return false, 0, nil, 0, headMax, nil
		}
		n, head = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return false, 0, nil, 0, headMax, nil
		}
		n, head = binary.BigEndian.Uint64(b[2:]), 10
	}
	if n > uint64(r.max()) {
		return false, 0, nil, 0, 0, ErrTooLarge
	}
	if op.control() && (!fin || n > 125) {
		return false, 0, nil, 0, 0, fmt.Errorf("websocket: bad control frame (opcode %d)", op)
	}
	if uint64(len(b)-head) < n {
		return false, 0, nil, 0, head + int(n), nil
	}
	return fin, op, b[head : head+int(n)], head + int(n), 0, nil
}

func (r *Reader) max() int {
	if r.Max > 0 {
		return r.Max
	}
	return 1 << 20
}

func (r *Reader) frame(fin bool, op Op, payload []byte, fn func(Op, []byte) error) error {
	switch {
	case op == OpClose || op == OpPing || op == OpPong:
		return fn(op, payload)
	case op == OpText || op == OpBinary:
		if r.msg != nil {
			return errors.New("websocket: a new message began inside a fragmented one")
		}
		if fin {
			return fn(op, payload)
		}
		r.msgOp, r.msg = op, append(make([]byte, 0, 2*len(payload)), payload...)
		return nil
	case op == OpContinuation:
		if r.msg == nil {
			return errors.New("websocket: continuation frame without a message")
		}
		if len(r.msg)+len(payload) > r.max() {
			return ErrTooLarge
		}
		r.msg = append(r.msg, payload...)
		if !fin {
			return nil
		}
		msg := r.msg
		r.msg = nil
		return fn(r.msgOp, msg)
	}
	return fmt.Errorf("websocket: unknown opcode %d", op)
}

// AppendFrame appends one final client frame: masked, as RFC 6455 requires
// of clients, with a fresh random key.
func AppendFrame(dst []byte, op Op, payload []byte) []byte {
	dst = append(dst, 0x80|byte(op))
	switch n := len(payload); {
	case n < 126:
		dst = append(dst, 0x80|byte(n))
	case n <= 0xFFFF:
		dst = append(dst, 0x80|126)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, 0x80|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	var key [4]byte
	binary.LittleEndian.PutUint32(key[:], rand.Uint32())
	dst = append(dst, key[:]...)
	start := len(dst)
	dst = append(dst, payload...)
	mask(dst[start:], key)
	return dst
}

func mask(b []byte, key [4]byte) {
	k8 := uint64(binary.LittleEndian.Uint32(key[:]))
	k8 |= k8 << 32
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k8)
		b = b[8:]
	}
	for i := range b {
		b[i] ^= key[i&3]
	}
}

// ClosePayload is the body of a close frame: a status code and a reason.
func ClosePayload(code uint16, reason string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, code), reason...)
}

// FirstMessage splits b after its first frame when that is a complete,
// unfragmented text or binary message; ok is false while b holds only part
// of it. For the handshakes where the server speaks first (an auth result)
// and the rest goes to a Reader.
func FirstMessage(b []byte) (op Op, payload, rest []byte, ok bool, err error) {
	var r Reader
	fin, op, payload, size, _, err := r.parse(b)
	if err != nil || size == 0 {
		return 0, nil, nil, false, err
	}
	if !fin || (op != OpText && op != OpBinary) {
		return 0, nil, nil, false, fmt.Errorf("websocket: expected a whole message first, got opcode %d", op)
	}
	return op, payload, b[size:], true, nil
}
