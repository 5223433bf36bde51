// Package openim is the reference target's OpenIM front end: a
// msggateway-like WebSocket endpoint answering every request identifier the
// real gateway answers (requests.go, seqs.go) and the openim-api REST routes
// imbench's setup and an OpenIM SDK's login and sync call (api.go,
// api_sync.go, api_msg.go), with OpenIM's notifications when asked
// (notify.go), over the protocol-free core. It decodes and encodes
// frames the way the real gateway does (a fresh gob encoder and decoder per
// frame, standard gzip), independently of the fast client codec, so each
// side checks the other. It maps OpenIM's conversation ids to core keys
// (convid.go), keeps MsgData in the core's opaque payload (message.go),
// answers the core's refusals with OpenIM's codes (errors.go) and exports
// the core's counts under OpenIM's metric names (metrics.go).
package openim

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
)

// Gateway limits and deadlines, as msggateway's constant.go has them.
const (
	PongWait       = wire.ReadDeadlineSeconds * time.Second // read deadline: a client silent this long is dropped
	writeWait      = 10 * time.Second                       // for control frames only: pushes are written with no deadline, as msggateway's loopSend
	maxMessageSize = wire.MaxFrameBytes
	// queueFrames is msggateway's per-connection writer channel (256): a
	// push that finds it full closes the connection ("websocket write
	// buffer full,close connection") and is dropped.
	queueFrames = 256
)

// Gateway serves the WebSocket endpoint.
type Gateway struct {
	Core        core.Backend
	Metrics     *Metrics
	Log         *slog.Logger
	ReadTimeout time.Duration // PongWait unless set

	upgrader websocket.Upgrader
	reads    *readSeqs // shared with the API when both are the FrontEnd's
}

// NewGateway returns a gateway over c: the core in this process, or a link
// to it in another (cluster.Remote).
func NewGateway(c core.Backend, m *Metrics, log *slog.Logger) *Gateway {
	return &Gateway{Core: c, Metrics: m, Log: log, ReadTimeout: PongWait, reads: newReadSeqs(), upgrader: websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   1024,
		WriteBufferSize:  1024,
		WriteBufferPool:  &sync.Pool{},
		CheckOrigin:      func(*http.Request) bool { return true },
	}}
}

// ServeHTTP accepts a login on any path, as msggateway does.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, err := parseLogin(r)
	if err == nil {
		err = g.Core.CheckLogin(a.token, a.user, a.platform)
		if errors.Is(err, core.ErrTokenUnknown) && !wellFormed(a.token) {
			err = refuse(wire.CodeTokenMalformed, "not a token") // as the API says it (tools tokenverify)
		}
	}
	if err != nil {
		g.refuseHandshake(w, r, a, refusalOf(err))
		return
	}
	ws, err := g.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := newConn(g, ws, a)
	if a.msgResp {
		ws.WriteMessage(websocket.TextMessage, loginAnswer(nil))
	}
	c.sess = core.NewSession(a.user, a.platform, a.token, c)
	// OpenIM's default multi-login policy: a login with the token already
	// online on the platform keeps both connections; another token kicks.
	c.sess.SameTokenJoins = true
	if err := g.Core.Attach(c.sess); err != nil {
		ref := refusalOf(err)
		g.Metrics.Login(ref.code())
		ws.WriteMessage(websocket.TextMessage, loginAnswer(ref))
		ws.Close()
		return
	}
	g.Metrics.Login("ok")
	go c.writeLoop()
	c.readLoop()
}

// onlineDevices lists the platforms a user is online on, as far as the
// backend tells (a core in another process does not: none).
func (g *Gateway) onlineDevices(userID string) []int {
	if o, ok := g.Core.(interface{ OnlineDevices(string) []int }); ok {
		return o.OnlineDevices(userID)
	}
	return nil
}
