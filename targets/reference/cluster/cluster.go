// Package cluster spreads the reference target over processes, as IM
// servers spread their gateways: one core process owns the state (accounts,
// groups, conversations, seqs, faults) and serves the REST API; gateway
// processes hold the WebSocket connections and reach the core over a link.
// A process can hold at most ~19k sockets here (20,000 open files), so
// 100,000 users need several gateways.
//
// The link is one TCP connection per gateway carrying a gob stream each way:
// requests from the gateway, and from the core the answers plus unsolicited
// pushes, kicks and closes for the gateway's sessions.
package cluster

import (
	"errors"
	"net"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
)

type op uint8

const (
	opLogin op = iota + 1
	opAttach
	opDetach
	opSend
	opMaxSeqs
	opPull
)

type request struct {
	ID      uint64
	Op      op
	Token   string
	User    string
	Device  int
	Session uint64
	Msg     *core.Message
	Conv    core.ConvKey
	Begin   int64
	End     int64
	Num     int64
}

type kind uint8

const (
	kindReply kind = iota + 1
	kindPush
	kindKick
	kindClose
)

type message struct {
	ID      uint64 // of the request answered; 0 for pushes, kicks, closes
	Kind    kind
	Session uint64
	Err     *core.Error // the core's refusals are all *core.Error, so they cross as such
	Msg     *core.Message
	Page    core.Page
	Seqs    map[core.ConvKey]int64
	At      time.Time
}

// err is the answer's error: nil, not a nil *core.Error, when there is none.
func (m message) err() error {
	if m.Err == nil {
		return nil
	}
	return m.Err
}

// refusal turns an error of the core into what crosses the link.
func refusal(err error) *core.Error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce
	}
	return core.ErrUnavailable.With("%s", err)
}

var errLinkDown = errors.New("cluster: link to the core is down")

// linkWriteWait bounds each write to a link: a peer that reads nothing for
// this long is taken for gone. On a machine loaded many times over (a
// quarter of a million users and their generator on two cores) a process
// can be starved for seconds, so it is generous.
const linkWriteWait = 30 * time.Second

// deadlineConn gives every write to the link a fresh deadline, whichever
// buffer flush makes it: a deadline set only before an explicit flush is
// long past when a full buffer writes in the middle of a busy stretch.
type deadlineConn struct{ net.Conn }

func (d deadlineConn) Write(p []byte) (int, error) {
	d.Conn.SetWriteDeadline(time.Now().Add(linkWriteWait))
	return d.Conn.Write(p)
}
