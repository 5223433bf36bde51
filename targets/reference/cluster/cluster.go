// Package cluster spreads the reference target over processes, as OpenIM
// spreads msggateway instances: one core process owns the state (accounts,
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
	ID       uint64
	Op       op
	Token    string
	User     string
	Platform int
	Session  uint64
	Msg      *core.Message
	Conv     string
	Begin    int64
	End      int64
	Num      int64
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
	Err     *core.Error
	Msg     *core.Message
	Msgs    []*core.Message
	IsEnd   bool
	EndSeq  int64
	Seqs    map[string]int64
	At      time.Time
}

var errLinkDown = errors.New("cluster: link to the core is down")
