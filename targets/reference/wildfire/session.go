package wildfire

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// session is get_token's: what a clientId may log in as, and the secret its
// traffic is encrypted with (wildfire.md §3.3, §5.3).
type session struct {
	clientID string
	user     string
	platform atomic.Int32
	secret   string // the session key: a UUID, as the real server's
	dbSecret string
	cipher   *wire.Cipher

	mu      sync.Mutex // the rate limiter's: a clientId's connections may overlap briefly
	buckets []bucket
}

// Platform classes: one session per user and class, a newer one kicking
// the older (server.multi_endpoint false, §5.7).
const (
	classMobile = iota + 1
	classPC
	classPad
	classWeb
	classMini
)

func platformClass(p int32) int {
	switch p {
	case wire.PlatformIOS, wire.PlatformAndroid, wire.PlatformHarmony:
		return classMobile
	case wire.PlatformWindows, wire.PlatformOSX, wire.PlatformLinux, wire.PlatformHarmonyPC:
		return classPC
	case wire.PlatformIPad, wire.PlatformAPad, wire.PlatformHarmonyPad:
		return classPad
	case wire.PlatformWeb:
		return classWeb
	case wire.PlatformWXMini:
		return classMini
	}
	return 100 + int(p) // unset or unknown: a class of its own
}

// deviceBase keeps Wildfire's devices clear of the other front ends' in the
// core's one-session-per-user-and-device table.
const deviceBase = 1 << 20

// device is the core's device of a session: its platform class.
func (s *session) device() int { return deviceBase | platformClass(s.platform.Load()) }

// uuid returns a random (version 4) UUID string.
func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// issue creates or reuses the session of clientID for user on platform and
// returns its token. A clientId keeps its secret across re-issues; one that
// changes user gets a new one. Other sessions of the user in the same
// platform class are removed: their CONNECT is then refused (7), and the
// new client's CONNECT kicks their connection.
func (f *FrontEnd) issue(user, clientID string, platform int32) (string, error) {
	f.mu.Lock()
	s := f.sessions[clientID]
	if s == nil || s.user != user {
		if s != nil {
			f.unlinkLocked(s)
		}
		secret := uuid()
		c, err := wire.NewCipher(secret)
		if err != nil {
			f.mu.Unlock()
			return "", err
		}
		s = &session{clientID: clientID, user: user, secret: secret, dbSecret: uuid(), cipher: c}
		f.sessions[clientID] = s
		f.byUser[user] = append(f.byUser[user], s)
	}
	s.platform.Store(platform)
	class := platformClass(platform)
	var removed []*session
	for _, o := range f.byUser[user] {
		if o != s && platformClass(o.platform.Load()) == class {
			delete(f.sessions, o.clientID)
			f.unlinkLocked(o)
			removed = append(removed, o)
		}
	}
	secret, dbSecret := s.secret, s.dbSecret
	f.mu.Unlock()
	f.kickSessions(user, removed)
	des := wire.MakeDESToken(f.TokenKey, time.Now().UnixMilli(), user)
	return wire.MakeIMToken(wire.IMToken{DESToken: des, Secret: secret, DBSecret: dbSecret, Hour: wire.HourNow()}), nil
}

// kickSessions kicks the live connections of sessions a new get_token
// removed, as the real server does at get_token (ROFL, then the close).
func (f *FrontEnd) kickSessions(user string, removed []*session) {
	if len(removed) == 0 {
		return
	}
	fd := f.feedOf(user)
	if fd == nil {
		return
	}
	var kick []*conn
	fd.mu.Lock()
	for _, c := range fd.conns {
		for _, o := range removed {
			if c.s == o {
				kick = append(kick, c)
			}
		}
	}
	fd.mu.Unlock()
	for _, c := range kick {
		c.Kick()
	}
}

// unlinkLocked takes s out of its user's list.
func (f *FrontEnd) unlinkLocked(s *session) {
	list := f.byUser[s.user]
	for i, o := range list {
		if o == s {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(f.byUser, s.user)
	} else {
		f.byUser[s.user] = list
	}
}

// lookup returns clientID's session, nil when it has none (or lost it).
func (f *FrontEnd) lookup(clientID string) *session {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.sessions[clientID]
}

// bucket is a leaky bucket of one topic (§9): level requests in it, leaking
// RateLimit per RateWindow.
type bucket struct {
	topic string
	level float64
	last  int64 // ns
}

// allow reports whether one more request of topic fits in limit per
// RateWindow at now, and counts it if so. topic is one of the few the
// reader names (the topics served; every other shares ""), so a session
// has a handful of buckets: a slice, searched, that grows only on a topic's
// first request.
func (s *session) allow(topic string, limit int, now int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b *bucket
	for i := range s.buckets {
		if s.buckets[i].topic == topic {
			b = &s.buckets[i]
			break
		}
	}
	if b == nil {
		s.buckets = append(s.buckets, bucket{topic: topic, last: now})
		b = &s.buckets[len(s.buckets)-1]
	}
	if d := now - b.last; d > 0 {
		b.level = max(0, b.level-float64(d)*float64(limit)/float64(RateWindow))
		b.last = now
	}
	if b.level+1 > float64(limit) {
		return false
	}
	b.level++
	return true
}
