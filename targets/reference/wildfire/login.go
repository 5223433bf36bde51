package wildfire

import (
	"net"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// serve runs one TCP connection: CONNECT, then frames until it ends. As the
// real server (wildfire.md §5.3, §14): the first frame must be a CONNECT
// within ConnectTimeout; a level-5 CONNECT (whose properties are not
// modelled) or one that does not decode is closed without a CONNACK; a
// refusal gets its CONNACK code, then the close.
func (f *FrontEnd) serve(nc net.Conn) {
	r := &frameReader{nc: nc, buf: make([]byte, readBuf), m: f.Metrics}
	typ, _, body, err := r.next(time.Now().Add(f.ConnectTimeout))
	if err != nil || typ != wire.TypeConnect {
		nc.Close()
		return
	}
	cp, err := wire.DecodeConnect(body)
	if err != nil {
		nc.Close()
		return
	}
	s, code := f.checkConnect(&cp)
	if code != wire.ConnackAccepted {
		f.refuse(nc, code)
		return
	}
	fd := f.keep(s.user)
	c := newConn(f, nc, s, cp.Level, fd)
	c.cs = core.NewSession(s.user, s.device(), s.clientID, c)
	// The CONNACK is queued first, with the head of the feed as c joins
	// it: anything filed later is told to c with an MN, after it.
	err = fd.attach(c)
	if err == nil {
		if err = f.c.Attach(c.cs); err != nil {
			fd.detach(c)
		}
	}
	if err != nil {
		f.refuse(nc, wire.ConnackServerUnavailable)
		return
	}
	f.Metrics.Login("ok")
	f.Metrics.conns.Add(1)
	defer func() {
		c.Close()
		f.c.Detach(c.cs) // what the reorder fault held is filed
		c.dmu.Lock()
		c.drainLocked()
		c.dmu.Unlock()
		fd.detach(c)
		f.Metrics.conns.Add(-1)
	}()
	go c.writeLoop()
	c.readLoop(r, idleTimeout(f.ReadTimeout, cp.KeepAlive))
}

// checkConnect is the real server's order of checks: the protocol level,
// the client id, the session of that client id and its user, the password.
func (f *FrontEnd) checkConnect(cp *wire.Connect) (*session, wire.ConnectReturnCode) {
	if (cp.Level != wire.LevelMQTT311 && cp.Level != wire.LevelWF2) || cp.ProtocolName != wire.ProtocolName {
		return nil, wire.ConnackUnacceptableProtocolVersion
	}
	if cp.ClientID == "" {
		return nil, wire.ConnackIdentifierRejected
	}
	s := f.lookup(cp.ClientID)
	if s == nil || s.user != cp.Username {
		return nil, wire.ConnackSessionNotExist
	}
	uid, err := wire.PasswordUserID(s.cipher, cp.Password, wire.HourNow(), f.TokenKey)
	if err != nil || uid != cp.Username {
		return nil, wire.ConnackBadUsernameOrPassword
	}
	return s, wire.ConnackAccepted
}

// connack is the accepting CONNACK: the user's head, every other head 0,
// the server's time, as the real server's.
func connack(head int64) ([]byte, error) {
	zero := proto.Int64(0)
	a, err := wire.NewConnack(wire.ConnackAccepted, &pb.ConnectAckPayload{MsgHead: proto.Int64(head),
		FriendHead: zero, FriendRqHead: zero, SettingHead: zero, ServerTime: proto.Int64(time.Now().UnixMilli())})
	if err != nil {
		return nil, err
	}
	return a.Append(nil)
}

func (f *FrontEnd) refuse(nc net.Conn, code wire.ConnectReturnCode) {
	f.Metrics.Login(strconv.Itoa(int(code)))
	if b, err := (wire.Connack{ReturnCode: code}).Append(nil); err == nil {
		nc.SetWriteDeadline(time.Now().Add(writeWait))
		nc.Write(b)
	}
	nc.Close()
}

// idleTimeout is how long a connection may stay silent: readTimeout when
// set, else IdleTimeout(keepAlive).
func idleTimeout(readTimeout time.Duration, keepAlive uint16) time.Duration {
	if readTimeout > 0 {
		return readTimeout
	}
	return IdleTimeout(keepAlive)
}

// IdleTimeout is the real server's reader idle time for a CONNECT's
// keepAlive: round(1.5 × keepAlive) seconds (Math.round), 0 for none.
func IdleTimeout(keepAlive uint16) time.Duration {
	return time.Duration((3*int64(keepAlive)+1)/2) * time.Second
}
