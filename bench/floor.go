package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/netloop"
	"github.com/imbench/imbench/load/verify"
)

// `imbench bench-floor` is the floor the bench sets the generator's CPU
// per verified delivery against: a bare client over the same sockets and
// the same workload as the delivery measurement (a group of all the users,
// all online, messages into it at a fixed rate), doing the least a client
// of the protocol must do to receive: it reads the frames and writes the
// acknowledgements and pulls the protocol needs, and nothing else. No
// payload is decrypted or parsed beyond what an acknowledgement or the next
// pull needs, nothing is verified, nothing is measured per message. Users
// and the group are set up over the same admin API the driver uses; only
// the steady sending is measured, by the bench, from outside.
//
// Its connections are read by the generator's own reader, netloop (epoll
// loops on Linux; IMBENCH_NETLOOP=goroutines gives a goroutine per
// connection), so that the floor is the cheapest reading this machine has
// and the ratio is what the generator adds on top of reading, not a
// difference in how sockets are read. One user, the first, sends; the
// others receive. Not in the usage: the bench starts it.

// FloorOptions are `imbench bench-floor`'s, checked by the caller.
type FloorOptions struct {
	Protocol string // openim, wukongim or wildfire
	API      string // the protocol's REST or admin API, http://host:port
	Gateway  string // its socket endpoint: ws://host:port (openim), tcp://host:port (wukongim, wildfire)
	Secret   string
	Admin    string // OpenIM's admin user ("": imAdmin)
	Users    int
	Rate     float64 // messages per second
	Messages int     // sent in all
	Body     int     // text bytes of each message
	Prefix   string  // user and group ID prefix
	Out      string  // the report's file ("": standard output)
}

// floorReport is what one floor run did.
type floorReport struct {
	Protocol    string  `json:"protocol"`
	Users       int     `json:"users"`
	Sent        int64   `json:"sent"`
	Acked       int64   `json:"acked"`   // answers to those sends their senders read
	Refused     int64   `json:"refused"` // of them, refusals
	Pushes      int64   `json:"pushes_read"`
	Pulled      int64   `json:"messages_pulled,omitempty"` // Wildfire: what the pulls brought
	Reader      string  `json:"reader"`
	SendSeconds float64 `json:"send_seconds"`
	FirstError  string  `json:"first_error,omitempty"`
}

// floorProtocol is one protocol's bare client.
type floorProtocol interface {
	// setup creates the users and their group over the admin API.
	setup(ctx context.Context, users []string, group string) error
	// login connects users[i].
	login(ctx context.Context, i int) (floorConn, error)
}

// floorConn is one logged-in user.
type floorConn interface {
	send(n int, text []byte) error // message n into the group (from the one sending goroutine)
	ping() error
	base() *floorBase
}

// floorBase is what every floor connection shares: its stream, and the
// counts the floor reads once it is done.
type floorBase struct {
	f       *floor
	st      netloop.Stream
	pushes  atomic.Int64
	pulled  atomic.Int64
	closing atomic.Bool
	frames  netloop.Frames // a framed protocol's: its frames, and what one read's frames answer
	out     []byte
	hold    time.Duration // how long out may wait for later answers (the generator's ack delay); 0: none
}

func (c *floorBase) base() *floorBase { return c }

// feed hands one read's bytes to the connection's framer f and writes
// what its frames appended to c.out (acks, pulls) in one write, at once or,
// with hold, at the flush the loop calls then.
func (c *floorBase) feed(b []byte, f netloop.Framer) error {
	err := c.frames.Feed(b, f)
	switch {
	case len(c.out) == 0:
	case c.hold > 0 && err == nil:
		c.st.FlushAfter(c.hold)
	default:
		if werr := c.write(); err == nil {
			err = werr
		}
	}
	return err
}

func (c *floorBase) write() error {
	err := c.st.Write(c.out, floorTimeout)
	c.out = c.out[:0]
	return err
}

// Flush implements netloop.Flusher: what hold kept back, in one write (a
// failed one ends the connection, and the floor with it).
func (c *floorBase) Flush() {
	if len(c.out) > 0 {
		c.write()
	}
}

// OnClose implements netloop.Handler's: a connection ends only when the
// floor closes it.
func (c *floorBase) OnClose(err error) {
	if !c.closing.Load() {
		c.f.fail(fmt.Errorf("a connection ended: %w", err))
	}
}

// floor is one run of the bare client.
type floor struct {
	o      FloorOptions
	users  []string
	group  string
	conns  []floorConn
	acked  atomic.Int64
	refuse atomic.Int64
	err    atomic.Pointer[error]
}

func (f *floor) fail(err error) { f.err.CompareAndSwap(nil, &err) }

func (f *floor) failed() error {
	if p := f.err.Load(); p != nil {
		return *p
	}
	return nil
}

// answered counts one answer to a send.
func (f *floor) answered(ok bool) {
	f.acked.Add(1)
	if !ok {
		f.refuse.Add(1)
	}
}

// The floor's bounds: a login's and the setup's time, and how long the
// pushes of the last messages may take once they are sent.
const (
	floorTimeout   = 10 * time.Second
	floorSetup     = 10 * time.Minute
	floorQuiet     = time.Second
	floorDrainMax  = time.Minute
	floorParallel  = 16
	floorMaxFrame  = 1 << 20
	floorPollEvery = 100 * time.Millisecond
)

// RunFloor runs the bare client o asks for and writes what it did as JSON;
// a connection that ended, a refused send or a send left unanswered fails
// it.
func RunFloor(o FloorOptions) error {
	spec, err := engine.Lookup(o.Protocol)
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	f := &floor{o: o, group: o.Prefix + "g"}
	for i := range o.Users {
		f.users = append(f.users, o.Prefix+"u"+strconv.Itoa(i))
	}
	var p floorProtocol
	switch o.Protocol {
	case "openim":
		p = newOpenIMFloor(f)
	case "wukongim":
		if p, err = newWuKongIMFloor(f); err != nil {
			return err
		}
	case "wildfire":
		p = newWildfireFloor(f)
	default:
		return badinput.Errorf("protocol %q has no floor client (openim, wukongim, wildfire)", o.Protocol)
	}
	ctx, cancel := context.WithTimeout(context.Background(), floorSetup)
	defer cancel()
	if err := p.setup(ctx, f.users, f.group); err != nil {
		return fmt.Errorf("floor: setup: %w", err)
	}
	if err := f.loginAll(ctx, p); err != nil {
		f.closeAll()
		return fmt.Errorf("floor: login: %w", err)
	}
	fmt.Fprintf(os.Stderr, "floor: %s, %d users online, sending %d messages at %g/s\n", o.Protocol, o.Users, o.Messages, o.Rate)
	stopBeat := f.heartbeat(spec.PingLimit)
	began := time.Now()
	sent, err := f.sendAll()
	rep := floorReport{Protocol: o.Protocol, Users: o.Users, Sent: int64(sent), SendSeconds: round2(time.Since(began).Seconds()),
		Reader: readerName()}
	if err == nil {
		err = f.drain(int64(sent))
	}
	stopBeat()
	f.closeAll()
	if err == nil {
		err = f.failed()
	}
	for _, c := range f.conns {
		rep.Pushes += c.base().pushes.Load()
		rep.Pulled += c.base().pulled.Load()
	}
	rep.Acked, rep.Refused = f.acked.Load(), f.refuse.Load()
	if err == nil && rep.Refused > 0 {
		err = fmt.Errorf("%d of %d sends refused", rep.Refused, sent)
	}
	if err != nil {
		rep.FirstError = err.Error()
	}
	fmt.Fprintf(os.Stderr, "floor: sent %d in %.1f s (%d answered), read %d pushes\n", sent, rep.SendSeconds, rep.Acked, rep.Pushes)
	if werr := writeFloorReport(o.Out, &rep); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	return nil
}

func readerName() string {
	if netloop.DefaultMode == netloop.Goroutines {
		return "a goroutine per connection (IMBENCH_NETLOOP=goroutines)"
	}
	return "netloop (epoll loops where it can)"
}

func writeFloorReport(out string, rep *floorReport) error {
	raw, _ := json.Marshal(rep)
	raw = append(raw, '\n')
	if out == "" {
		_, err := os.Stdout.Write(raw)
		return err
	}
	return os.WriteFile(out, raw, 0o644)
}

// loginAll logs every user in, floorParallel at a time.
func (f *floor) loginAll(ctx context.Context, p floorProtocol) error {
	f.conns = make([]floorConn, len(f.users))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(floorParallel)
	for i := range f.users {
		g.Go(func() error {
			lctx, cancel := context.WithTimeout(gctx, floorTimeout)
			defer cancel()
			c, err := p.login(lctx, i)
			if err != nil {
				return fmt.Errorf("%s: %w", f.users[i], err)
			}
			f.conns[i] = c
			return nil
		})
	}
	return g.Wait()
}

// heartbeat pings every connection once per period (the longest the
// protocol's server tolerates) until the returned stop is called.
func (f *floor) heartbeat(period time.Duration) (stop func()) {
	if period <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, c := range f.conns {
					if err := c.ping(); err != nil {
						f.fail(fmt.Errorf("ping: %w", err))
					}
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// floorText is message n's text as the generator writes it (the
// verifier's body: run tag, sender, number, time, checksum), not one
// letter repeated: OpenIM gzips each frame, and a text of one letter costs
// less to compress and to read.
func floorText(dst []byte, sender, n, size int) []byte {
	return verify.AppendBody(dst, "floor", uint32(sender), 0, uint32(n), time.Now().UnixMicro(), size)
}

// sendAll has the first user send every message, evenly spaced at the
// rate, and returns how many went out. At most one message per user is
// unanswered at a time, as many as the generator's senders (one each)
// keep in flight: a machine that cannot hold the rate falls behind the
// schedule, as the generator does, rather than flood the server.
func (f *floor) sendAll() (int, error) {
	var text []byte
	interval := time.Duration(float64(time.Second) / f.o.Rate)
	start := time.Now()
	inFlight := int64(f.o.Users)
	for n := range f.o.Messages {
		if wait := time.Until(start.Add(time.Duration(n) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		for stuck := time.Now().Add(time.Minute); int64(n)-f.acked.Load() >= inFlight; {
			if err := f.failed(); err != nil {
				return n, err
			}
			if time.Now().After(stuck) {
				return n, fmt.Errorf("%d sends unanswered for a minute", inFlight)
			}
			time.Sleep(100 * time.Microsecond)
		}
		if err := f.failed(); err != nil {
			return n, err
		}
		// Every user sends in turn, as the generator's workload does: the
		// cost of a send lies also in which connection carries it.
		sender := n % len(f.conns)
		text = floorText(text[:0], sender, n, f.o.Body)
		if err := f.conns[sender].send(n, text); err != nil {
			return n, fmt.Errorf("send: %w", err)
		}
	}
	return f.o.Messages, nil
}

// drain waits until every send is answered, every receiver has had at
// least each message once (a loaded machine may pause longer than
// floorQuiet mid-stream) and no push has come for floorQuiet, at most
// floorDrainMax.
func (f *floor) drain(sent int64) error {
	total := func() int64 {
		var n int64
		for _, c := range f.conns {
			n += c.base().pushes.Load() + c.base().pulled.Load()
		}
		return n
	}
	least := sent * int64(f.o.Users-1)
	deadline := time.Now().Add(floorDrainMax)
	last, since := total(), time.Now()
	for time.Now().Before(deadline) {
		if err := f.failed(); err != nil {
			return err
		}
		time.Sleep(floorPollEvery)
		if n := total(); n != last {
			last, since = n, time.Now()
		} else if f.acked.Load() >= sent && n >= least && time.Since(since) >= floorQuiet {
			return nil
		}
	}
	if a := f.acked.Load(); a < sent {
		return fmt.Errorf("%d of %d sends unanswered after %s", sent-a, sent, floorDrainMax)
	}
	return errors.New("pushes still coming " + floorDrainMax.String() + " after the last send")
}

// closeAll closes every connection; their ends are not failures.
func (f *floor) closeAll() {
	for _, c := range f.conns {
		if c == nil {
			continue
		}
		b := c.base()
		b.closing.Store(true)
		b.st.Close()
	}
}
