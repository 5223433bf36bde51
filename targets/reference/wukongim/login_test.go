package wukongim_test

import (
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

var both = []string{viaTCP, viaWS}

// A version-5 client gets what the real server sent (wukongim.md §13):
// flag 0x01, server version 5, a key, a 16-char salt, nodeId 1001, a small
// timeDiff; a key exchange that works both ways.
func TestConnackOfVersion5(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	users(t, tg, "u1", "u2")
	for _, via := range both {
		t.Run(via, func(t *testing.T) {
			c := dial(t, tg, via)
			ack := c.connect(login{uid: "u1", token: "tk-u1"})
			if ack.Flags != wire.FlagHasServerVersion || ack.ServerVersion != 5 || ack.ReasonCode != wire.ReasonSuccess ||
				ack.ServerKey == "" || len(ack.Salt) != wire.SaltLen || ack.NodeID != 1001 || ack.TimeDiff < -1000 || ack.TimeDiff > 1000 {
				t.Fatalf("CONNACK %+v", ack)
			}
			c2 := online(t, tg, via, "u2")
			c2.write(c2.sendPacket("u1", wire.ChannelPerson, "hello"))
			if _, text := c.recv(5 * time.Second); text != "hello" {
				t.Fatalf("decrypted %q", text)
			}
		})
	}
}

// A version-3 client gets no server-version byte and no nodeId; a client
// asking for more than 5 gets 5.
func TestConnackOfOtherVersions(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	users(t, tg, "u1")
	c := dial(t, tg, viaTCP)
	ack := c.connect(login{uid: "u1", token: "tk-u1", version: 3, deviceID: "a"})
	if ack.Flags != 0 || ack.ServerVersion != 0 || ack.NodeID != 0 || c.version != 3 {
		t.Fatalf("v3 CONNACK %+v", ack)
	}
	c.quiet() // the frames after it are read at version 3 and still decode
	c = dial(t, tg, viaTCP)
	if ack := c.connect(login{uid: "u1", token: "tk-u1", version: 7, deviceID: "b"}); ack.ServerVersion != 5 || ack.NodeID != 1001 {
		t.Fatalf("v7 CONNACK %+v", ack)
	}
}

// A refused login gets no CONNACK and is closed after the refusal delay; so
// is a token of another device flag (tokens are per user and flag).
func TestRefusedLoginIsSilent(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{AuthFailDelay: 300 * time.Millisecond})
	users(t, tg, "u1")
	for _, l := range []login{{uid: "u1", token: "wrong"}, {uid: "u1", token: "tk-u1", flag: wire.DeviceWeb},
		{uid: "nobody", token: "tk-nobody"}, {uid: "u1"}} {
		for _, via := range both {
			c := dial(t, tg, via)
			start := time.Now()
			if _, err := c.tryConnect(l, 5*time.Second); err == nil {
				t.Fatalf("%+v over %s logged in", l, via)
			}
			if d := time.Since(start); d < 250*time.Millisecond {
				t.Fatalf("%+v over %s closed after %s, before the refusal delay", l, via, d)
			}
		}
	}
	if n := tg.Counter(t, "imbench_target_ws_logins_total"); n != 8 {
		t.Fatalf("%v logins counted, want 8 refusals", n)
	}
}

// No CONNECT: closed after the connect timeout. A first frame that is not a
// CONNECT, a uid with '@', and anything pipelined after the CONNECT: closed
// at once, with no CONNACK.
func TestHandshakeClosures(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{ConnectTimeout: 300 * time.Millisecond})
	users(t, tg, "u1")
	connect := func(uid string) wire.Connect {
		kp, _ := wire.GenerateKey(nil)
		return wire.Connect{Version: 5, DeviceID: "d", UID: uid, Token: "tk-" + uid, ClientTimestamp: time.Now().UnixMilli(), ClientKey: kp.PublicKeyBase64()}
	}
	for _, via := range both {
		c := dial(t, tg, via)
		start := time.Now()
		if !c.closedWithin(5*time.Second) || time.Since(start) < 250*time.Millisecond {
			t.Fatalf("%s: silent connection closed after %s", via, time.Since(start))
		}
		for name, frames := range map[string][]wire.Packet{
			"ping first":      {wire.Ping{}},
			"uid with @":      {connect("u@1")},
			"CONNECT+PING":    {connect("u1"), wire.Ping{}},
			"CONNECT+RECVACK": {connect("u1"), wire.Recvack{MessageID: 1, MessageSeq: 1}},
		} {
			c := dial(t, tg, via)
			c.write(frames...)
			start := time.Now()
			if !c.closedWithin(5*time.Second) || time.Since(start) > 200*time.Millisecond {
				t.Fatalf("%s %s: not closed at once (%s)", via, name, time.Since(start))
			}
		}
	}
}

// A master device's newer login with another deviceID kicks the older:
// DISCONNECT(12, "login in other device"), closed the kick delay later.
// A slave's does not.
func TestMasterKicksOlderDevice(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{KickDelay: 200 * time.Millisecond})
	apiCall(t, tg, "POST", wire.PathUserToken, wire.UserTokenReq{UID: "m", Token: "tm", DeviceLevel: wire.DeviceLevelMaster}, nil)
	users(t, tg, "s")
	for _, via := range both {
		old := dial(t, tg, via)
		old.connect(login{uid: "m", token: "tm", deviceID: "d1"})
		dial(t, tg, via).connect(login{uid: "m", token: "tm", deviceID: "d2"})
		d, ok := old.must(5 * time.Second).(wire.Disconnect)
		if !ok || d.ReasonCode != wire.ReasonConnectKick || d.Reason != wire.KickReason {
			t.Fatalf("%s: kicked with %+v", via, d)
		}
		start := time.Now()
		if !old.closedWithin(5*time.Second) || time.Since(start) < 100*time.Millisecond {
			t.Fatalf("%s: kicked connection closed after %s", via, time.Since(start))
		}
		s1 := dial(t, tg, via)
		s1.connect(login{uid: "s", token: "tk-s", deviceID: "d1"})
		dial(t, tg, via).connect(login{uid: "s", token: "tk-s", deviceID: "d2"})
		s1.quiet()
	}
}

// A client's DISCONNECT is answered, then the socket closes; a drop (the
// disconnect fault) says nothing.
func TestGoodbyeIsAnswered(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	users(t, tg, "u1")
	for _, via := range both {
		c := online(t, tg, via, "u1")
		c.write(wire.Disconnect{})
		if _, ok := c.must(5 * time.Second).(wire.Disconnect); !ok {
			t.Fatal("DISCONNECT not answered")
		}
		if !c.closedWithin(5 * time.Second) {
			t.Fatal("not closed after the goodbye")
		}
		c = online(t, tg, via, "u1")
		if n := tg.Core.Drop(1); n != 1 {
			t.Fatalf("dropped %d", n)
		}
		if !c.closedWithin(5 * time.Second) {
			t.Fatal("not dropped")
		}
	}
}

// A logged-in connection silent past the read timeout is dropped and
// counted; one that pings stays.
func TestHeartbeatTimeout(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 400*time.Millisecond)
	users(t, tg, "u1", "u2")
	for i, via := range both {
		pinger := online(t, tg, via, "u2")
		c := online(t, tg, via, "u1")
		for range 4 {
			time.Sleep(150 * time.Millisecond)
			pinger.quiet()
		}
		if !c.closedWithin(5 * time.Second) {
			t.Fatal("silent connection not dropped")
		}
		if n := tg.Counter(t, "imbench_target_heartbeat_timeouts_total"); n != float64(i+1) {
			t.Fatalf("%v heartbeat timeouts", n)
		}
		pinger.quiet()
		pinger.close()
	}
	// A PONG is counted once queued, after the PING: the client may have
	// read it a moment before the count moves.
	pings, pongs := tg.Counter(t, "app_ping_count_total"), 0.0
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pongs = tg.Counter(t, "app_pong_count_total"); pongs == pings {
			break
		}
	}
	if pings != pongs || pings < 10 {
		t.Fatalf("pings %v pongs %v", pings, pongs)
	}
}
