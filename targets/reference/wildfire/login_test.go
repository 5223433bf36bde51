package wildfire_test

import (
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// CONNACK's codes as the real server's (§5.3, §14), and its payload.
func TestConnack(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	cr := getToken(t, tg, "u1", "c1", wire.PlatformLinux)
	other := getToken(t, tg, "u2", "c2", wire.PlatformLinux)
	pw := func(c *wire.Cipher, des string) []byte { return wire.ConnectPassword(c, des, wire.HourNow()) }
	wrongKey, _ := wire.NewCipher("0123456789abcdef-nope")

	c := dial(t, tg)
	before := time.Now().UnixMilli()
	a := c.connect(cr)
	ack, err := a.Ack()
	if a.ReturnCode != wire.ConnackAccepted || a.SessionPresent || err != nil {
		t.Fatalf("CONNACK %+v %v", a, err)
	}
	if ack.MsgHead == nil || ack.GetMsgHead() != 0 || ack.FriendHead == nil || ack.FriendRqHead == nil || ack.SettingHead == nil ||
		ack.GetServerTime() < before || ack.GetServerTime() > time.Now().UnixMilli() {
		t.Fatalf("CONNACK payload %v", ack)
	}
	c.write(wire.Pingreq{})
	if p, err := c.read(time.Second); err != nil || p != (wire.Pingresp{}) {
		t.Fatalf("PINGRESP: %v %v", p, err)
	}

	for _, k := range []struct {
		name string
		cn   wire.Connect
		want wire.ConnectReturnCode
	}{
		{"level 3", func() wire.Connect {
			cn := wire.NewConnect("c1", "u1", pw(cr.cipher, cr.tok.DESToken), 60)
			cn.Level, cn.ProtocolName = wire.LevelMQTT31, "MQIsdp"
			return cn
		}(), wire.ConnackUnacceptableProtocolVersion},
		{"unknown clientId", wire.NewConnect("nobody", "u1", pw(cr.cipher, cr.tok.DESToken), 60), wire.ConnackSessionNotExist},
		{"username not the session's", wire.NewConnect("c1", "u2", pw(cr.cipher, other.tok.DESToken), 60), wire.ConnackSessionNotExist},
		{"wrong key", wire.NewConnect("c1", "u1", pw(wrongKey, cr.tok.DESToken), 60), wire.ConnackBadUsernameOrPassword},
		{"another user's token", wire.NewConnect("c1", "u1", pw(cr.cipher, other.tok.DESToken), 60), wire.ConnackBadUsernameOrPassword},
		{"no password", wire.Connect{ProtocolName: "MQTT", Level: 4, Flags: wire.ConnectFlagUsername, ClientID: "c1", Username: "u1"}, wire.ConnackBadUsernameOrPassword},
		{"empty clientId", wire.NewConnect("", "u1", pw(cr.cipher, cr.tok.DESToken), 60), wire.ConnackIdentifierRejected},
	} {
		c := dial(t, tg)
		a := c.connectWith(k.cn)
		if a.ReturnCode != k.want || a.Payload != nil {
			t.Errorf("%s: CONNACK %s %x, want %s", k.name, a.ReturnCode, a.Payload, k.want)
		}
		if !c.closedWithin(2 * time.Second) {
			t.Errorf("%s: still open after the refusal", k.name)
		}
	}

	// Level 6 is level 4 with gzip; level 5 (MQTT 5 properties) gets no CONNACK.
	c6 := dial(t, tg)
	cn := wire.NewConnect("c1", "u1", pw(cr.cipher, cr.tok.DESToken), 60)
	cn.Level = wire.LevelWF2
	if a := c6.connectWith(cn); a.ReturnCode != wire.ConnackAccepted {
		t.Fatalf("level 6: %s", a.ReturnCode)
	}
	c5 := dial(t, tg)
	c5.raw([]byte{0x10, 0x0c, 0, 4, 'M', 'Q', 'T', 'T', 5, 0xc2, 0, 60, 0, 0})
	if p, err := c5.read(2 * time.Second); err == nil {
		t.Fatalf("level 5 answered %+v", p)
	}
	if n := tg.Counter(t, "imbench_target_ws_logins_total"); n != 9 {
		t.Errorf("logins counted %v, want 9", n)
	}
}

// No CONNECT within ConnectTimeout: closed, with nothing said.
func TestConnectTimeout(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{ConnectTimeout: 300 * time.Millisecond})
	c := dial(t, tg)
	start := time.Now()
	if !c.closedWithin(3*time.Second) || time.Since(start) < 250*time.Millisecond {
		t.Fatalf("closed after %v", time.Since(start))
	}
}

// A silent connection is dropped after the read timeout and counted; one
// that pings stays. Without ReadTimeout, round(1.5 × keepAlive) applies.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{ReadTimeout: time.Second})
	silent, _ := online(t, tg, "silent")
	pinger, _ := online(t, tg, "pinger")
	start := time.Now()
	stop := time.After(2500 * time.Millisecond)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	pongs := 0
loop:
	for {
		select {
		case <-tick.C:
			pinger.write(wire.Pingreq{})
			if p, err := pinger.read(time.Second); err != nil || p != (wire.Pingresp{}) {
				t.Fatalf("pinger: %v %v", p, err)
			}
			pongs++
		case <-stop:
			break loop
		}
	}
	if !silent.closedWithin(100*time.Millisecond) || pongs < 6 {
		t.Fatalf("silent not closed after %v (%d pongs)", time.Since(start), pongs)
	}
	if n := tg.Counter(t, "imbench_target_heartbeat_timeouts_total"); n != 1 {
		t.Fatalf("heartbeat timeouts %v, want 1", n)
	}

	tg = reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	c := dial(t, tg)
	cr := getToken(t, tg, "k", "ck", wire.PlatformLinux)
	c.cr = cr
	if a := c.connectWith(wire.NewConnect("ck", "k", wire.ConnectPassword(cr.cipher, cr.tok.DESToken, wire.HourNow()), 1)); a.ReturnCode != 0 {
		t.Fatal(a.ReturnCode)
	}
	start = time.Now()
	if !c.closedWithin(4*time.Second) || time.Since(start) < 1800*time.Millisecond {
		t.Fatalf("keepAlive 1: closed after %v, want 2 s", time.Since(start))
	}
}

// A newer token of the same user and platform class with another clientId
// kicks the older connection at its CONNECT: ROFL "1", closed KickDelay
// later; the older clientId's session is gone (7). The same clientId
// connecting again replaces the older connection without a ROFL. DISCONNECT
// closes and keeps the session.
func TestKickAndReconnect(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{KickDelay: 300 * time.Millisecond})
	old, _ := online(t, tg, "u")
	mobile := dial(t, tg)
	if a := mobile.connect(getToken(t, tg, "u", "phone", wire.PlatformAndroid)); a.ReturnCode != 0 {
		t.Fatalf("another class: %s", a.ReturnCode)
	}
	newer := getToken(t, tg, "u", "c-u-2", wire.PlatformOSX)
	n := dial(t, tg)
	if a := n.connect(newer); a.ReturnCode != 0 {
		t.Fatal(a.ReturnCode)
	}
	p := old.wait("ROFL", 2*time.Second, func(p wire.Packet) bool {
		pub, ok := p.(wire.Publish)
		return ok && pub.Topic == wire.TopicNotifyOffline
	})
	if pub := p.(wire.Publish); string(pub.Payload) != "1" || pub.QoS != 0 {
		t.Fatalf("ROFL %+v", pub)
	}
	kicked := time.Now()
	if !old.closedWithin(2*time.Second) || time.Since(kicked) < 200*time.Millisecond {
		t.Fatalf("kicked connection closed after %v", time.Since(kicked))
	}
	again := dial(t, tg)
	if a := again.connect(old.cr); a.ReturnCode != wire.ConnackSessionNotExist {
		t.Fatalf("kicked clientId: %s", a.ReturnCode)
	}
	if n := tg.Counter(t, "imbench_target_wildfire_kicks_total"); n != 1 {
		t.Fatalf("kicks %v", n)
	}

	// Same clientId: the older connection is closed, no ROFL.
	same := dial(t, tg)
	if a := same.connect(newer); a.ReturnCode != 0 {
		t.Fatal(a.ReturnCode)
	}
	if !n.closedWithin(2 * time.Second) {
		t.Fatal("replaced connection still open")
	}
	for _, p := range n.pending {
		t.Fatalf("replaced connection got %+v", p)
	}

	// DISCONNECT e0 00: closed; the session stays; e8 00 also closes.
	same.write(wire.Disconnect{})
	if !same.closedWithin(2 * time.Second) {
		t.Fatal("DISCONNECT: still open")
	}
	back := dial(t, tg)
	if a := back.connect(newer); a.ReturnCode != 0 {
		t.Fatalf("after DISCONNECT: %s", a.ReturnCode)
	}
	back.raw([]byte{0xe8, 0})
	if !back.closedWithin(2 * time.Second) {
		t.Fatal("e8 00: still open")
	}
	if a := dial(t, tg).connect(newer); a.ReturnCode != 0 {
		t.Fatalf("after e8 00: %s", a.ReturnCode)
	}
	if mobile.closedWithin(100 * time.Millisecond) {
		t.Fatal("the other platform class was dropped")
	}
}
