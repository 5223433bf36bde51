package verify

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/load/plan"
)

// Outcome is what one arrival meant.
type Outcome uint8

const (
	Delivered       Outcome = iota // first arrival of this message at this user
	OutOfOrder                     // first arrival, pushed after a later message of the same sender and conversation
	Duplicate                      // pushed again after it had already arrived by push: the server delivered it twice
	PushedAfterPull                // pushed once after a pull had brought it: the client's pull met a late push
	Overlap                        // a pulled copy of something already here: the sync's overlap, not a fault
	Self                           // the sender's own copy (a server's sender sync)
	BeforeJoin                     // a chatroom message sent before this user joined: not expected
	Foreign                        // not a message of this run
	Corrupt                        // bytes or routing differ from what was sent
	Notice                         // a message the server made (a notification): its seq is taken, nothing else counts
)

// Arrival is a message as a driver decoded it, resolved to plan indexes.
type Arrival struct {
	Conv     uint32 // the plan conversation it arrived in
	Seq      uint64 // server sequence in that conversation, 0 if none
	Sender   int64  // plan index of the envelope's sender, -1 if not a plan user
	Text     []byte // the message text
	CreateMs int64  // the envelope's create time, ms; 0 when the protocol carries none (WuKongIM)
	Pulled   bool   // arrived in a pull response rather than a push
	GapFill  bool   // pulled because a seq gap was noticed (not a login sync)
	// Catchup is the sync at a login after the user's connection ended,
	// and LeftUs when it ended: what it pulls that was sent after that was
	// never owed a push (a return's or a reconnect's pull, not a gap's).
	Catchup Catchup
	LeftUs  int64
	Parsed  *Parsed // Text already parsed: once per identical frame, not per receiver
	Notice  bool    // the server's own message in a conversation of the plan (OpenIM's notifications): only its seq counts
}

// Catchup says which login's sync an arrival came by: one after a spell
// away, or after a drop.
type Catchup uint8

const (
	NoCatchup        Catchup = iota // a push, a gap pull, a first login's or the drain's sync
	CatchupReturn                   // the login back after a spell away
	CatchupReconnect                // the login again after a drop
	catchups
)

// Parsed is the result of ParseBody, kept with a frame many receivers got.
type Parsed struct {
	Body Body
	Err  error
}

// Parse parses an arrival's text once, for every receiver of the same bytes.
func Parse(text []byte) *Parsed {
	b, err := ParseBody(text)
	return &Parsed{Body: b, Err: err}
}

// Inbox is one receiving user's view: per conversation the seqs seen (to
// notice gaps) and per sender the message numbers received.
type Inbox struct {
	mu    sync.Mutex
	me    uint32
	convs map[uint32]*convIn
	never bool // the user was due to log in and never got online
	// The conversation of the last arrival: a member of a busy group gets
	// one after another from the same one.
	lastC  uint32
	lastCv *convIn
}

type convIn struct {
	seqs     seqSet
	maxSeq   uint64
	from     senders
	joinedUs int64 // chatroom: when this user joined (µs), 0 before
	// The sender of the last arrival: a group's messages mostly come from
	// the same few senders in a row, so most arrivals skip the map.
	lastFrom uint32
	lastS    *senderIn
}

func (cv *convIn) sender(u uint32) *senderIn {
	if cv.lastS != nil && cv.lastFrom == u {
		return cv.lastS
	}
	s := cv.from.add(u)
	cv.lastFrom, cv.lastS = u, s
	return s
}

// senderIn is what one receiver got of one sender in one conversation.
// It is four words: a member of a busy group keeps one for every other
// member, and each delivery reads one that has gone cold since that
// sender's last message; the fewer bytes all of them take, the more of
// them (and of everything else a delivery touches) stay in cache.
type senderIn struct {
	got  seqSet
	maxN uint64
	// pulls is nil in an empty slot of senders, noPulls in an entry
	// whose messages all came by push.
	pulls *senderPulls
}

// senderPulls is a sender's numbers whose first copy came by pull (one
// range for a late user's contiguous catch-up, one more per gap pull), and
// those of them a push has brought since: the first such push is the pull
// meeting a late push, a second one a duplicate. Only for protocols that
// number messages per conversation (Arrival.Seq): where each copy is an
// entry of its own (Wildfire's per-user feeds, Seq 0), a second copy is
// the server's second filing, a duplicate.
type senderPulls struct {
	pulled     rangeSet
	pushedLate map[uint64]struct{}
}

// noPulls is the pulls of every entry that has had none; never written.
var noPulls = &senderPulls{}

func (s *senderIn) listed() bool { return s.pulls != nil }

// ownPulls is s's pulls, made its own for writing.
func (s *senderIn) ownPulls() *senderPulls {
	if s.pulls == noPulls {
		s.pulls = &senderPulls{}
	}
	return s.pulls
}

// NewInbox returns the inbox of user me.
func NewInbox(me uint32) *Inbox { return &Inbox{me: me, convs: map[uint32]*convIn{}} }

func (in *Inbox) conv(c uint32) *convIn {
	if in.lastCv != nil && in.lastC == c {
		return in.lastCv
	}
	cv := in.convs[c]
	if cv == nil {
		cv = &convIn{}
		in.convs[c] = cv
	}
	in.lastC, in.lastCv = c, cv
	return cv
}

// Checker classifies arrivals for one run and counts them into a tally.
type Checker struct {
	Run  []byte
	Plan *plan.Plan
	tag  atomic.Pointer[[tagDigits]byte] // runTag(Run), once
}

// fromRun reports whether a parsed message is of the checker's run.
func (ck *Checker) fromRun(b Body) bool {
	t := ck.tag.Load()
	if t == nil {
		v := runTag(ck.Run)
		t = &v
		ck.tag.Store(t)
	}
	return string(b.Run) == string(t[:])
}

// Receive classifies one arrival at inbox in, counts it into t and records
// its end-to-end latency (create → now) unless it came from a login sync.
// gap reports whether a seq below the highest seen of the arrival's
// conversation is missing: the contiguous run from 1 stops short of it.
func (ck *Checker) Receive(in *Inbox, a Arrival, now time.Time, t *Tally) (o Outcome, gap bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	cv := in.conv(a.Conv)
	if a.Seq > 0 {
		cv.seqs.add(a.Seq)
		cv.maxSeq = max(cv.maxSeq, a.Seq)
	}
	if a.Notice {
		return Notice, cv.seqs.upTo < cv.maxSeq
	}
	return ck.classify(cv, in.me, a, now, t), cv.seqs.upTo < cv.maxSeq
}

func (ck *Checker) classify(cv *convIn, me uint32, a Arrival, now time.Time, t *Tally) Outcome {
	var b Body
	var err error
	if a.Parsed != nil {
		b, err = a.Parsed.Body, a.Parsed.Err
	} else {
		b, err = ParseBody(a.Text)
	}
	switch {
	case err == ErrForeign:
		t.Foreign.Add(1)
		return Foreign
	case err != nil:
		t.Corrupt.Add(1)
		return Corrupt
	case !ck.fromRun(b):
		t.Foreign.Add(1)
		return Foreign
	case int64(b.Sender) != a.Sender || b.Conv != a.Conv || int(b.Conv) >= len(ck.Plan.Convs) ||
		(a.CreateMs != 0 && b.CreateUs/1000 != a.CreateMs):
		t.Corrupt.Add(1)
		return Corrupt
	case b.Sender == me:
		return Self
	case ck.Plan.Convs[b.Conv].Kind == plan.Room && (cv.joinedUs == 0 || b.CreateUs < cv.joinedUs):
		t.BeforeJoin.Add(1)
		return BeforeJoin
	}
	k := KindIndex(ck.Plan.Convs[b.Conv].Kind)
	cls := ck.classCounts(t, b.Conv)
	pop := ck.popCounts(t, me)
	s := cv.sender(b.Sender)
	n := uint64(b.N)
	if !s.got.add(n) {
		if a.Pulled {
			t.Overlap.Add(1)
			return Overlap
		}
		if a.Seq > 0 && s.pulls.pulled.has(n) {
			if _, again := s.pulls.pushedLate[n]; !again {
				p := s.ownPulls()
				if p.pushedLate == nil {
					p.pushedLate = map[uint64]struct{}{}
				}
				p.pushedLate[n] = struct{}{}
				t.PushedAfterPull[k].Add(1)
				return PushedAfterPull
			}
		}
		t.Duplicates[k].Add(1)
		cls.Duplicates.Add(1)
		if pop != nil {
			pop.Duplicates.Add(1)
		}
		return Duplicate
	}
	if a.Pulled && a.Seq > 0 {
		s.ownPulls().pulled.add(n)
	}
	out := Delivered
	if !a.Pulled && n < s.maxN {
		out = OutOfOrder
		t.OutOfOrder[k].Add(1)
		cls.OutOfOrder.Add(1)
		if pop != nil {
			pop.OutOfOrder.Add(1)
		}
	}
	cls.Received.Add(1)
	if pop != nil {
		pop.Received.Add(1)
	}
	s.maxN = max(s.maxN, n)
	caughtUp := a.Pulled && a.Catchup != NoCatchup && b.CreateUs >= a.LeftUs
	switch {
	case caughtUp:
		t.Pulled[k].Add(1)
		t.CatchupPulled[a.Catchup][k].Add(1)
	case a.Pulled:
		t.Pulled[k].Add(1)
		if a.GapFill {
			t.GapPulled[k].Add(1)
		}
	default:
		t.Pushed[k].Add(1)
	}
	// A return's pull is the user's absence, not the server's delay.
	if !a.Pulled || (a.GapFill && !(caughtUp && a.Catchup == CatchupReturn)) {
		d := now.Sub(time.UnixMicro(b.CreateUs))
		if d < 0 {
			t.NegativeE2E.Add(1)
		}
		t.E2E[k].Record(d)
	}
	return out
}

// Join records that the user joined chatroom c now: messages sent from
// then on are expected, through later drops and joins again (what a drop
// makes it miss is a chatroom's loss). On the first join, first is called
// with the time (µs) while the inbox is locked.
func (in *Inbox) Join(c uint32, first func(atUs int64)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if cv := in.conv(c); cv.joinedUs == 0 {
		cv.joinedUs = time.Now().UnixMicro()
		first(cv.joinedUs)
	}
}

// SetNeverOnline marks the user as one that was due to log in and never
// got online: the reconciliation counts what it was owed as not
// attempted, not as lost.
func (in *Inbox) SetNeverOnline() {
	in.mu.Lock()
	in.never = true
	in.mu.Unlock()
}

// NeverOnline reports whether SetNeverOnline marked the user.
func (in *Inbox) NeverOnline() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.never
}

// Own records seq of conversation c as the user's own message, which
// arrives by no push: it is not missing.
func (in *Inbox) Own(c uint32, seq uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	cv := in.conv(c)
	cv.seqs.add(seq)
	cv.maxSeq = max(cv.maxSeq, seq)
}

// BeforeRun records seqs 1..upTo of conversation c as the server's from
// before the run: none of them the run's, none of them missing.
func (in *Inbox) BeforeRun(c uint32, upTo uint64) {
	if upTo == 0 {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	cv := in.conv(c)
	cv.seqs.fill(upTo)
	cv.maxSeq = max(cv.maxSeq, upTo)
}

// Gaps lists up to limit seqs of conversation c that are missing below the
// highest seq seen, ascending.
func (in *Inbox) Gaps(c uint32, limit int) []uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	cv := in.convs[c]
	if cv == nil {
		return nil
	}
	return cv.seqs.missing(cv.maxSeq, limit)
}

// MissingUpTo lists up to limit seqs of conversation c in 1..max not yet
// seen: what a (re)login sync must pull given the server's max seq.
func (in *Inbox) MissingUpTo(c uint32, max uint64, limit int) []uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.conv(c).seqs.missing(max, limit)
}

// MaxSeqs is the highest seq that arrived of each conversation.
func (in *Inbox) MaxSeqs() map[uint32]uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make(map[uint32]uint64, len(in.convs))
	for c, cv := range in.convs {
		if cv.maxSeq > 0 {
			out[c] = cv.maxSeq
		}
	}
	return out
}

// Has reports whether message n of sender s in conversation c arrived.
func (in *Inbox) Has(c, s uint32, n uint64) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	cv := in.convs[c]
	if cv == nil {
		return false
	}
	si := cv.from.get(s)
	return si != nil && si.got.has(n)
}
