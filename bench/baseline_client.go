package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/load/engine"
	_ "github.com/imbench/imbench/load/openim" // the openim protocol: users and their tokens
)

// `imbench bench-baseline-hold` is the baseline `imbench bench` compares
// the generator's idle users with: users held online the way the seed's
// own load program, OpenIM's msgtest (openim-sdk-core/msgtest, Test Program
// B), holds its users. Each user has one gorilla/websocket connection, a
// goroutine that dials it and then reads it (read deadline 30 s, pushed on
// by every frame and pong), and a goroutine that heartbeats it with a
// WebSocket ping every 24 s (8/10 of the gateway's 30 s read deadline), as
// the SDK's connection manager does; gorilla's default dialer and buffers,
// gzip asked for in the login URL. It sends nothing else. Tokens come from
// the target's REST API as the generator's come (admin token, then
// get_user_token per user). It runs as a process of its own, so that the
// bench measures its RSS and CPU alone, holds its users for -hold once all
// are online, then closes them and exits, writing what happened as JSON.
// Not in the usage: the bench starts it.

// baselineReport is what one baseline hold did.
type baselineReport struct {
	Users          int     `json:"users"`
	Connected      int64   `json:"connected"`
	ConnectErrors  int64   `json:"connect_errors"`
	Drops          int64   `json:"drops"` // connections that ended before the client closed them
	Pings          int64   `json:"pings"`
	PingErrors     int64   `json:"ping_errors"`
	Pongs          int64   `json:"pongs"`
	Frames         int64   `json:"frames_read"`
	Goroutines     int     `json:"goroutines_held"` // the process's, all users online
	TokenSeconds   float64 `json:"seconds_to_tokens"`
	OnlineSeconds  float64 `json:"seconds_to_online"` // from the first dial
	HeldSeconds    float64 `json:"held_seconds"`
	FirstError     string  `json:"first_error,omitempty"`
	PingEverySecs  float64 `json:"ping_every_seconds"`
	ReadDeadlSecs  float64 `json:"read_deadline_seconds"`
	GoroutinesUser int     `json:"goroutines_per_user"`
}

// baselineUser is one held user: its connection and whether the client
// itself is closing it.
type baselineUser struct {
	conn    *websocket.Conn
	closing atomic.Bool
	done    chan struct{} // closed when its reader returns
}

type baselineHold struct {
	urls         []string
	ping         time.Duration
	readDeadline time.Duration
	parallel     int

	rep      baselineReport
	errOnce  sync.Once
	mu       sync.Mutex
	users    []*baselineUser
	dialing  sync.WaitGroup // every user's dial, done or failed
	running  sync.WaitGroup // every reader and heartbeat goroutine
	stopping chan struct{}
}

const baselineWriteWait = 10 * time.Second // the SDK's writeWait

// BaselineOptions are `imbench bench-baseline-hold`'s, checked by the caller.
type BaselineOptions struct {
	API          string // the target's OpenIM REST API, http://host:port
	WS           string // its msggateway WebSocket URLs, comma-separated
	Secret       string // the target's admin secret
	Admin        string // its admin user ("": the protocol's default)
	Users        int
	Hold         time.Duration // how long they are held once all are online
	Ping         time.Duration
	ReadDeadline time.Duration
	Prefix       string // user ID prefix
	Parallel     int    // dials in flight at once
	Out          string // the report's file ("": standard output)
}

// HoldBaseline holds o.Users online msgtest's way for o.Hold, then writes
// what happened as JSON; any connect error, drop or failed ping fails it.
func HoldBaseline(o BaselineOptions) error {
	opts := map[string]any{"secret": o.Secret}
	if o.Admin != "" {
		opts["admin"] = o.Admin
	}
	t := engine.Target{Name: "reference", System: "openim",
		Endpoints: map[string]string{"api": o.API, "ws": o.WS}, Options: opts}
	_, proto, err := t.Open()
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	sl, ok := proto.(engine.StockLogins)
	if !ok {
		return errors.New("the openim protocol offers no logins for a baseline")
	}
	h := &baselineHold{ping: o.Ping, readDeadline: o.ReadDeadline, parallel: o.Parallel, stopping: make(chan struct{})}
	h.rep.Users, h.rep.PingEverySecs, h.rep.ReadDeadlSecs, h.rep.GoroutinesUser = o.Users, o.Ping.Seconds(), o.ReadDeadline.Seconds(), 2
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	h.urls, err = sl.StockLogins(ctx, o.Prefix, o.Users)
	cancel()
	if err != nil {
		return fmt.Errorf("baseline: users and tokens: %w", err)
	}
	h.rep.TokenSeconds = round2(time.Since(began).Seconds())
	fmt.Fprintf(os.Stderr, "baseline: %d users, tokens in %.1f s\n", o.Users, h.rep.TokenSeconds)

	h.connectAll()
	h.rep.Goroutines = runtime.NumGoroutine()
	fmt.Fprintf(os.Stderr, "baseline: %d of %d online in %.1f s (%d connect errors), holding %s\n",
		h.rep.Connected, o.Users, h.rep.OnlineSeconds, h.rep.ConnectErrors, o.Hold)
	heldFrom := time.Now()
	time.Sleep(o.Hold)
	h.rep.HeldSeconds = round2(time.Since(heldFrom).Seconds())
	h.stop()
	fmt.Fprintf(os.Stderr, "baseline: held %d users %.0f s: %d drops, %d pings (%d failed), %d pongs\n",
		h.rep.Connected, h.rep.HeldSeconds, h.rep.Drops, h.rep.Pings, h.rep.PingErrors, h.rep.Pongs)

	raw, _ := json.Marshal(&h.rep)
	raw = append(raw, '\n')
	if o.Out == "" {
		_, err = os.Stdout.Write(raw)
	} else {
		err = os.WriteFile(o.Out, raw, 0o644)
	}
	if err != nil {
		return err
	}
	if h.rep.ConnectErrors > 0 || h.rep.Drops > 0 || h.rep.PingErrors > 0 {
		return fmt.Errorf("baseline: %d connect errors, %d drops, %d failed pings (first: %s)",
			h.rep.ConnectErrors, h.rep.Drops, h.rep.PingErrors, h.rep.FirstError)
	}
	return nil
}

// connectAll starts every user, at most h.parallel dials at once, and
// returns when each is online or has failed.
func (h *baselineHold) connectAll() {
	began := time.Now()
	slots := make(chan struct{}, h.parallel)
	h.dialing.Add(len(h.urls))
	for _, u := range h.urls {
		slots <- struct{}{}
		h.running.Add(1)
		go h.reader(u, slots)
	}
	h.dialing.Wait()
	h.rep.OnlineSeconds = round2(time.Since(began).Seconds())
}

// reader is a user's first goroutine, as msgtest's readPump: it dials the
// gateway, starts the heartbeat, then reads until the connection ends.
func (h *baselineHold) reader(rawURL string, slot chan struct{}) {
	defer h.running.Done()
	dialer := *websocket.DefaultDialer // the SDK's: 4 KiB buffers each way
	dialer.Proxy = nil                 // loopback only
	conn, resp, err := dialer.Dial(rawURL, nil)
	<-slot
	if err != nil {
		if resp != nil {
			err = fmt.Errorf("%w (HTTP %d)", err, resp.StatusCode)
		}
		atomic.AddInt64(&h.rep.ConnectErrors, 1)
		h.firstError(fmt.Errorf("dial %s: %w", redactToken(rawURL), err))
		h.dialing.Done()
		return
	}
	u := &baselineUser{conn: conn, done: make(chan struct{})}
	h.mu.Lock()
	h.users = append(h.users, u)
	h.mu.Unlock()
	atomic.AddInt64(&h.rep.Connected, 1)
	conn.SetReadLimit(1 << 20)
	extend := func() { conn.SetReadDeadline(time.Now().Add(h.readDeadline)) }
	conn.SetPongHandler(func(string) error {
		atomic.AddInt64(&h.rep.Pongs, 1)
		extend()
		return nil
	})
	conn.SetPingHandler(func(data string) error {
		extend()
		err := conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(baselineWriteWait))
		if errors.Is(err, websocket.ErrCloseSent) {
			return nil
		}
		return err
	})
	h.running.Add(1)
	go h.heartbeat(u)
	h.dialing.Done()
	defer close(u.done)
	for {
		extend()
		if _, _, err := conn.ReadMessage(); err != nil {
			if !u.closing.Load() {
				atomic.AddInt64(&h.rep.Drops, 1)
				h.firstError(fmt.Errorf("read: %w", err))
			}
			conn.Close()
			return
		}
		atomic.AddInt64(&h.rep.Frames, 1)
	}
}

// heartbeat is a user's second goroutine: a ping every h.ping until the
// connection ends or the hold does.
func (h *baselineHold) heartbeat(u *baselineUser) {
	defer h.running.Done()
	t := time.NewTicker(h.ping)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-u.done:
			return
		case <-h.stopping:
			return
		case <-t.C:
			opID := strconv.Itoa(n) // the SDK's ping carries an operation ID
			if err := u.conn.WriteControl(websocket.PingMessage, []byte(opID), time.Now().Add(baselineWriteWait)); err != nil {
				if !u.closing.Load() {
					atomic.AddInt64(&h.rep.PingErrors, 1)
					h.firstError(fmt.Errorf("ping: %w", err))
				}
				continue
			}
			atomic.AddInt64(&h.rep.Pings, 1)
		}
	}
}

// stop ends the hold: a close frame to each user still online, then its
// connection closed, and every goroutine waited for.
func (h *baselineHold) stop() {
	close(h.stopping)
	h.mu.Lock()
	users := h.users
	h.mu.Unlock()
	for _, u := range users {
		u.closing.Store(true)
		u.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
			time.Now().Add(time.Second))
		u.conn.Close()
	}
	h.running.Wait()
}

func (h *baselineHold) firstError(err error) {
	h.errOnce.Do(func() { h.rep.FirstError = err.Error() })
}

// redactToken is a login URL without its token, for messages.
func redactToken(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the gateway"
	}
	q := u.Query()
	if q.Has("token") {
		q.Set("token", "…")
	}
	u.RawQuery = q.Encode()
	return strings.Replace(u.String(), "%E2%80%A6", "…", 1)
}
