package wukongim

import (
	"io"
	"strconv"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// serve runs one connection: CONNECT, then frames until it ends. As the
// real server (wukongim.md §5, §13): the first frame must be a CONNECT; a
// connection that sends nothing is closed after ConnectTimeout; anything
// sent after the CONNECT before the CONNACK closes it at once; a refused
// login gets no CONNACK and is closed AuthFailDelay later.
func (g *gateway) serve(t transport) {
	r := &frameReader{t: t, buf: make([]byte, readBuf), g: g}
	connectBy := time.Now().Add(g.f.ConnectTimeout)
	typ, flags, body, err := r.next(func() time.Time { return connectBy })
	if err != nil || typ != wire.TypeConnect {
		t.Close()
		return
	}
	cp, err := wire.DecodeConnect(flags, body, wire.LatestVersion)
	if err != nil || cp.UID == "" || !validID(cp.UID) || r.buffered() {
		t.Close()
		return
	}
	if cp.UID == managerUID {
		g.manager(t, &cp)
		return
	}
	c, ack, reason, drop := g.login(t, &cp)
	if drop != keep {
		g.dropLogin(t, drop)
		return
	}
	if c == nil {
		g.f.Metrics.Login(strconv.Itoa(int(reason)))
		if reason == wire.ReasonAuthFail {
			g.refused(t)
		}
		t.Close()
		return
	}
	g.f.Metrics.Login("ok")
	m := g.f.Metrics
	m.conns.Add(1)
	g.f.userOnline(cp.UID, 1)
	g.f.track(c)
	defer func() {
		g.b.Detach(c.sess)
		c.Close()
		m.conns.Add(-1)
		g.f.userOnline(cp.UID, -1)
		g.f.untrack(c)
	}()
	c.first(ack)
	go c.writeLoop()
	c.readLoop(r)
}

// login checks the token and attaches the connection to the core; a nil
// conn is a refusal, or a drop the login-drop fault chose for a login that
// would have succeeded and came in a burst of such logins (a refused one
// is not counted: imbench's token check is one).
func (g *gateway) login(t transport, cp *wire.Connect) (*conn, []byte, wire.ReasonCode, dropHow) {
	level := wire.DeviceLevelSlave
	switch {
	case g.f.Open:
		g.ensure(cp.UID) // tokenAuthOn false: any token, a slave device (event_connect.go)
	case cp.Token == "":
		return nil, nil, wire.ReasonAuthFail, keep
	case g.b.CheckLogin(cp.Token, cp.UID, tokenDevice(cp.DeviceFlag, level)) != nil:
		level = wire.DeviceLevelMaster
		if g.b.CheckLogin(cp.Token, cp.UID, tokenDevice(cp.DeviceFlag, level)) != nil {
			return nil, nil, wire.ReasonAuthFail, keep
		}
	}
	if drop := g.f.loginDrop(g.f.noteConnect()); drop != keep {
		return nil, nil, 0, drop
	}
	version, connackFlags := wire.Negotiate(cp.Version)
	ack := wire.Connack{Flags: connackFlags, ServerVersion: version, ReasonCode: wire.ReasonSuccess, NodeID: g.f.NodeID}
	var cipher *wire.Cipher
	if g.f.Encryption {
		kp, err := wire.GenerateKey(nil)
		if err != nil {
			return nil, nil, wire.ReasonSystemError, keep
		}
		if ack.Salt, err = wire.NewSalt(nil); err != nil {
			return nil, nil, wire.ReasonSystemError, keep
		}
		if cipher, err = kp.Cipher(cp.ClientKey, ack.Salt); err != nil {
			return nil, nil, wire.ReasonAuthFail, keep // as the real server answers a bad clientKey
		}
		ack.ServerKey = kp.PublicKeyBase64()
	}
	c := newConn(g, t, cp.UID, version, cipher)
	c.stats.since, c.stats.device, c.stats.level, c.stats.deviceID = time.Now(), cp.DeviceFlag, level, cp.DeviceID
	c.stats.lastActivity.Store(c.stats.since.UnixNano())
	device, token := sessionDevice(cp.DeviceFlag, level, cp.DeviceID)
	c.sess = core.NewSession(cp.UID, device, token, c)
	if err := g.b.Attach(c.sess); err != nil {
		return nil, nil, reasonOf(err), keep
	}
	ack.TimeDiff = time.Now().UnixMilli() - cp.ClientTimestamp
	b, err := ack.Append(nil, version)
	if err != nil {
		g.b.Detach(c.sess)
		return nil, nil, wire.ReasonSystemError, keep
	}
	return c, b, wire.ReasonSuccess, keep
}

// managerUID logs in with the managerToken rather than a user's token
// (event_connect.go: options.ManagerUID).
const managerUID = "____manager"

// manager answers the manager's login as the real server does: a CONNACK
// where the token is the managerToken (any token where the server has
// none), else silence, and then a connection that receives nothing; under
// the login-drop fault, closed unanswered as a user's login is. It is
// counted apart from the users' logins.
func (g *gateway) manager(t transport, cp *wire.Connect) {
	sc, ok := g.b.(interface{ CheckSecret(string) bool })
	if !g.f.Open && (!ok || !sc.CheckSecret(cp.Token)) {
		g.f.Metrics.Login("manager refused")
		g.refused(t)
		t.Close()
		return
	}
	// The real server drops the manager's CONNECT as it drops a user's:
	// closed unanswered (wukongim.md §17).
	if g.f.loginDrop(g.f.noteConnect()) == dropClose {
		g.dropLogin(t, dropClose)
		return
	}
	version, flags := wire.Negotiate(cp.Version)
	ack := wire.Connack{Flags: flags, ServerVersion: version, ReasonCode: wire.ReasonSuccess, NodeID: g.f.NodeID,
		TimeDiff: time.Now().UnixMilli() - cp.ClientTimestamp}
	if g.f.Encryption {
		kp, err := wire.GenerateKey(nil)
		if err == nil {
			ack.Salt, err = wire.NewSalt(nil)
		}
		if err != nil {
			t.Close()
			return
		}
		ack.ServerKey = kp.PublicKeyBase64()
	}
	b, err := ack.Append(nil, version)
	if err != nil {
		t.Close()
		return
	}
	g.f.Metrics.Login("manager")
	if err := t.write(b, time.Now().Add(5*time.Second)); err != nil {
		t.Close()
		return
	}
	g.silent(t, g.readTimeout)
	t.Close()
}

// refused keeps a refused connection open and silent for AuthFailDelay,
// reading and dropping what the client sends, as the real server's idle
// limit for unauthenticated connections does.
func (g *gateway) refused(t transport) { g.silent(t, g.f.AuthFailDelay) }

// silent keeps a connection open for d, reading and dropping what the
// client sends, until the client closes it.
func (g *gateway) silent(t transport, d time.Duration) {
	t.SetReadDeadline(time.Now().Add(d))
	io.Copy(io.Discard, t)
}
