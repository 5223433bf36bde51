package core

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"
)

// The state log (Config.StateLog) is one append-only file of every change a
// client could observe after a restart: users, friendships, tokens, groups
// and their members, chatroom members, deletions of users, groups and
// chatrooms, and each acknowledged message. New
// replays it, so a restarted core has the same accounts and tokens, the
// same members, every message pullable and each conversation's seq going
// on after its last. What it does not keep: connections, faults' held
// pushes, and messages the lose fault dropped (they were never stored).
//
// A record is a frame: body length (uint32 LE), CRC-32C of the body
// (uint32 LE), body. The body is the record's kind (one byte) then its
// fields: strings and byte strings as a uvarint length and the bytes,
// lists as a uvarint count and the strings, numbers as varints.
//
// Each change is written while the state it changes is locked (so the log
// holds them in the order they happened) and before the call returns: a
// message before its seq is acknowledged or pushed. A write to the OS is
// enough, no fsync: the log outlives the process being killed (the page
// cache keeps it), not the machine going down.
type stateLog struct {
	mu  sync.Mutex
	f   *os.File
	buf []byte // the record being made: one write per record
	err error  // sticky: after a failed write the file may end in a torn record
}

type recKind uint8

const (
	recRegister recKind = iota + 1
	recBefriend
	recCreateGroup
	recAddMembers
	recRemoveMembers
	recJoinRoom
	recLeaveRoom
	recAdminToken
	recUserToken
	recSetToken
	recMessage
	recDeleteUser
	recDismissGroup
	recDeleteRoom
)

const (
	frameHeader = 8
	maxRecord   = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openStateLog replays the log at path into c (creating the file when
// missing) and returns it open for appending. A torn last record, left by
// a process killed mid-write, is cut off with a log line.
func (c *Core) openStateLog(path string) (*stateLog, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600) // it holds tokens
	if err != nil {
		return nil, fmt.Errorf("state log: %w", err)
	}
	began := time.Now()
	n, good, torn, err := c.replay(f)
	if err == nil && torn {
		c.log.Warn("state log: ignoring a torn last record", "path", path, "offset", good)
		err = f.Truncate(good)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("state log %s: %w", path, err)
	}
	if n > 0 {
		c.log.Info("state log replayed", "path", path, "records", n, "bytes", good, "took", time.Since(began).Round(time.Millisecond))
	}
	return &stateLog{f: f}, nil
}

// replay applies the records of f in order: n of them, ending at offset
// good; torn when what follows good is an incomplete or damaged last record.
func (c *Core) replay(f *os.File) (n int, good int64, torn bool, err error) {
	st, err := f.Stat()
	if err != nil {
		return 0, 0, false, err
	}
	size := st.Size()
	r := bufio.NewReaderSize(f, 1<<20)
	var head [frameHeader]byte
	for good < size { // every pass moves good on by a frame or returns
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return n, good, true, nil // only a short read of the last bytes
		}
		length := int64(binary.LittleEndian.Uint32(head[:4]))
		end := good + frameHeader + length
		if end > size {
			return n, good, true, nil
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return n, good, false, err
		}
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(head[4:]) {
			if end == size {
				return n, good, true, nil
			}
			return n, good, false, fmt.Errorf("record at offset %d is damaged", good)
		}
		if err := c.apply(body); err != nil {
			return n, good, false, fmt.Errorf("record at offset %d: %w", good, err)
		}
		n++
		good = end
	}
	return n, good, false, nil
}

// apply replays one record on the core, whose log is not open yet: the
// public calls used here log nothing.
func (c *Core) apply(body []byte) error {
	d := recReader{b: body}
	kind := recKind(d.byte())
	var err error
	switch kind {
	case recRegister:
		err = c.Register(d.strs())
	case recBefriend:
		err = c.Befriend(d.str(), d.strs())
	case recCreateGroup:
		id, owner, members := d.str(), d.str(), d.strs()
		if d.err == nil {
			c.groupNo++ // generated ids made after the restart stay new
			_, err = c.CreateGroup(id, owner, members)
		}
	case recAddMembers:
		err = c.AddMembers(d.str(), d.strs())
	case recRemoveMembers:
		err = c.RemoveMembers(d.str(), d.strs())
	case recJoinRoom:
		err = c.JoinRoom(d.str(), d.strs()...)
	case recLeaveRoom:
		err = c.LeaveRoom(d.str(), d.strs()...)
	case recAdminToken:
		t, user, device := d.str(), d.str(), d.int()
		c.mu.Lock()
		c.tokens[t] = &token{user: user, device: device, admin: true}
		c.mu.Unlock()
	case recUserToken:
		t, user, device := d.str(), d.str(), d.int()
		c.mu.Lock()
		if c.users[user] == nil {
			err = ErrUnknownUser.With("user %s", user)
		} else {
			c.userTokenLocked(t, user, device)
		}
		c.mu.Unlock()
	case recSetToken:
		err = c.SetToken(d.str(), d.int(), d.str())
	case recDeleteUser:
		err = c.DeleteUser(d.str())
	case recDismissGroup:
		err = c.DismissGroup(d.str())
	case recDeleteRoom:
		err = c.DeleteRoom(d.str())
	case recMessage:
		m := &Message{Conv: ConvKey{Kind: Kind(d.byte()), ID: d.str(), Peer: d.str()},
			Sender: d.str(), ClientID: d.str(), Seq: d.varint(), Time: d.varint(), System: d.byte() == 1, Payload: d.bytes()}
		if d.err == nil {
			err = c.restore(m)
		}
	default:
		return fmt.Errorf("unknown record kind %d", kind)
	}
	if d.err != nil {
		return d.err
	}
	if err == nil && len(d.b) > 0 {
		err = fmt.Errorf("%d bytes after a record of kind %d", len(d.b), kind)
	}
	return err
}

// restore puts a logged message back in its conversation, next in seq.
func (c *Core) restore(m *Message) error {
	k := m.Conv
	if !k.Kind.valid() {
		return fmt.Errorf("conversation kind %d", k.Kind)
	}
	if k.Kind == Direct {
		c.mu.RLock()
		missing := c.users[k.ID] == nil || c.users[k.Peer] == nil
		c.mu.RUnlock()
		if missing {
			return ErrUnknownUser.With("in %v", k)
		}
	}
	cv := c.openConv(k)
	cv.mu.Lock()
	defer cv.mu.Unlock()
	if m.Seq != cv.seq+1 {
		return fmt.Errorf("seq %d of %v after %d", m.Seq, k, cv.seq)
	}
	cv.seq = m.Seq
	if k.Kind.keepsHistory() {
		cv.msgs = append(cv.msgs, m)
	}
	return nil
}

// Close closes the state log, if any; every record is written already.
func (c *Core) Close() error {
	if c.statelog == nil {
		return nil
	}
	return c.statelog.f.Close()
}

// The records, one method each. A nil log (none configured, or a replay
// under way) records nothing.

func (l *stateLog) register(ids []string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(appendStrs(l.begin(recRegister), ids))
}

func (l *stateLog) befriend(owner string, ids []string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(appendStrs(appendStr(l.begin(recBefriend), owner), ids))
}

func (l *stateLog) createGroup(id, owner string, members []string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(appendStrs(appendStr(appendStr(l.begin(recCreateGroup), id), owner), members))
}

// members records users joining or leaving a group or chatroom: kind is
// recAddMembers, recRemoveMembers, recJoinRoom or recLeaveRoom.
func (l *stateLog) members(kind recKind, id string, users []string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(appendStrs(appendStr(l.begin(kind), id), users))
}

// token records a token the core issued: kind is recAdminToken or recUserToken.
func (l *stateLog) token(kind recKind, t, user string, device int) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(binary.AppendVarint(appendStr(appendStr(l.begin(kind), t), user), int64(device)))
}

func (l *stateLog) setToken(user string, device int, t string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(appendStr(binary.AppendVarint(appendStr(l.begin(recSetToken), user), int64(device)), t))
}

// message records a message given its seq; a chatroom's without its
// payload, which the core does not keep.
func (l *stateLog) message(m *Message) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.begin(recMessage), byte(m.Conv.Kind))
	b = appendStr(appendStr(b, m.Conv.ID), m.Conv.Peer)
	b = appendStr(appendStr(b, m.Sender), m.ClientID)
	b = binary.AppendVarint(binary.AppendVarint(b, m.Seq), m.Time)
	system := byte(0)
	if m.System {
		system = 1
	}
	b = append(b, system)
	if m.Conv.Kind.keepsHistory() {
		b = appendBytes(b, m.Payload)
	} else {
		b = appendBytes(b, nil)
	}
	return l.write(b)
}

// begin starts a record in l.buf, room left for the frame's header.
func (l *stateLog) begin(kind recKind) []byte {
	return append(append(l.buf[:0], make([]byte, frameHeader)...), byte(kind))
}

// write frames the record b (l.buf grown) and writes it to the file.
func (l *stateLog) write(b []byte) error {
	l.buf = b[:0]
	if l.err != nil {
		return ErrUnavailable.With("state log failed earlier: %v", l.err)
	}
	body := b[frameHeader:]
	if len(body) > maxRecord {
		return ErrBadArgs.With("state log record of %d bytes", len(body))
	}
	binary.LittleEndian.PutUint32(b[:4], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(body, castagnoli))
	if _, err := l.f.Write(b); err != nil {
		l.err = err
		return ErrUnavailable.With("state log: %v", err)
	}
	return nil
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendBytes(b, p []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(p))), p...)
}

func appendStrs(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendStr(b, s)
	}
	return b
}

// recReader reads a record's fields; the first error sticks and later
// reads return zero values.
type recReader struct {
	b   []byte
	err error
}

var errShortRecord = errors.New("record shorter than its fields")

func (r *recReader) fail() { r.err, r.b = errShortRecord, nil }

func (r *recReader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *recReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recReader) int() int { return int(r.varint()) }

func (r *recReader) bytes() []byte {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)-k) {
		r.fail()
		return nil
	}
	v := r.b[k : k+int(n) : k+int(n)]
	r.b = r.b[k+int(n):]
	return v
}

func (r *recReader) str() string { return string(r.bytes()) }

func (r *recReader) strs() []string {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)-k) { // each string takes a byte at least
		r.fail()
		return nil
	}
	r.b = r.b[k:]
	out := make([]string, 0, n)
	for range n {
		out = append(out, r.str())
	}
	return out
}
