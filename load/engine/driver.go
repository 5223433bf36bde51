// Package engine runs a plan's users: logins, heartbeats, paced sending with
// per-sender order, gap and reconnect pulls, drain. It is protocol-neutral;
// a Driver speaks the wire. All of it runs in Go goroutines so that one worker
// holds thousands of online users.
package engine

import (
	"context"
	"time"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// Driver speaks one IM system's protocol for one plan (Protocol.Preflight
// checks the target before one is made).
type Driver interface {
	// Setup creates the plan's users, friendships and groups.
	Setup(ctx context.Context, progress func(string)) (SetupReport, error)
	// Connect logs user u in and starts delivering its traffic to h.
	Connect(ctx context.Context, u uint32, h Handler) (Conn, error)
}

// SetupReport counts what Setup created.
type SetupReport struct {
	Registered  int `json:"registered"`
	Friendships int `json:"friendships"`
	Groups      int `json:"groups"`
	// Warnings are what the server did wrong that setup worked around,
	// one line each (printed, and kept in the summary's warnings).
	Warnings []string `json:"warnings,omitempty"`
	// WritesRedone are setup's writes the server answered with a timeout
	// and setup made again (a real Wildfire behind answers 249 and does
	// the write all the same).
	WritesRedone int `json:"writes_redone,omitempty"`
}

// Handler receives a connection's traffic. Calls come from the connection's
// reader goroutine, one at a time per connection.
type Handler interface {
	// Arrive takes one message a connection received. a.Text may alias a
	// buffer the driver reuses: it is valid only until Arrive returns.
	Arrive(a verify.Arrival)
	// Closed is called once when connection c ends other than by Close;
	// kicked is true when the server replaced it with another login.
	Closed(c Conn, err error, kicked bool)
}

// OwnSeqs is a Handler that takes the seq the server gave the user's own
// message in its acknowledgement (WuKongIM's SENDACK). The server pushes the
// message to everyone but the sending connection; a client keeps what it
// sent under that seq, so it is no gap to pull. The engine's User is one.
type OwnSeqs interface {
	Sent(conv uint32, seq uint64)
}

// Conn is one logged-in user's connection. Methods are safe for concurrent
// use; callbacks run on the reader goroutine and must not block.
type Conn interface {
	// Send sends message m with the given text; done reports the server's
	// acknowledgement (nil) or the failure.
	Send(m plan.Msg, text []byte, createMs int64, done func(error)) error
	// Pull asks for the given seqs per plan conversation; the messages arrive
	// through Handler.Arrive marked Pulled (and GapFill when recover is true).
	Pull(seqs map[uint32][]uint64, recover bool, done func(error)) error
	// MaxSeqs asks for the server's highest seq of each of the user's
	// conversations.
	MaxSeqs(done func(map[uint32]uint64, error)) error
	// Ping sends a heartbeat.
	Ping() error
	// Close says goodbye and ends the connection without a Closed
	// callback; ended follows once it has ended, with dropped true when the
	// server had dropped the connection before it read the goodbye (a drop
	// that races the end of a test still counts).
	Close(ended func(dropped bool))
	// Alive is false once the connection has ended.
	Alive() bool
}

// Talker is a Conn whose server takes any packet from the client as a sign
// of life (MQTT's keep-alive): with Options.PingAfterSilence the heartbeat
// pings it only once it has written nothing for the ping interval, as an
// MQTT client does. Its writes, pings included, must each draw an answer,
// so that the client's own read deadline holds too.
type Talker interface {
	// WroteSince reports a write to the server at t or later.
	WroteSince(t time.Time) bool
}

// HeadSyncer is a Conn whose server numbers messages per user rather than
// per conversation and notifies before the client pulls (Wildfire): a login
// or final sync pulls everything after the newest message the client holds,
// in place of MaxSeqs and Pull.
type HeadSyncer interface {
	// Sync pulls what waits after the user's head; the messages arrive
	// through Handler.Arrive, Pulled (GapFill when recover), and done
	// follows once the client holds everything up to the server's head.
	Sync(recover bool, done func(error)) error
}

// EmptyUntilSent is a Driver whose server keeps nothing in a run's
// conversations until the run sends to them: making a group or a friendship
// leaves no notice in it (WuKongIM), unlike OpenIM's group notifications. A
// first login before the run's first send then has nothing to sync, and the
// engine asks nothing (a request per conversation the server would answer
// with none).
type EmptyUntilSent interface {
	EmptyUntilSent() bool
}

// LoginSyncer is a Conn whose client does more at login than the sync:
// OpenIM's SDK-faithful login makes the requests openim-sdk-core makes, in
// its order. The engine calls LoginSync once after Connect and before the
// sync; messages it pulls arrive through Handler.Arrive marked Pulled
// (GapFill when recover). An error marks the login failed in its cost; the
// connection stays, as the SDK's does.
type LoginSyncer interface {
	LoginSync(ctx context.Context, recover bool) error
}

// LoginCoster is a Conn that accounts for its own login: when it began (the
// dial: a token fetched before it is not the login's) and how many requests
// it has made so far, WebSocket requests and REST calls alike. Without it a
// login is timed from Connect and costs the requests of its sync.
type LoginCoster interface {
	Dialed() time.Time
	Requests() int64
}
