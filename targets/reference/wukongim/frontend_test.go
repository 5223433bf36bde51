package wukongim

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/openim"
	wire "github.com/imbench/imbench/wire/wukongim"
)

func TestStoredPayloadRoundTrips(t *testing.T) {
	s := stored{Flags: wire.FlagRedDot | wire.FlagDUP, Setting: wire.SettingTopic, Expire: 9, MessageID: 1 << 60,
		Origin: 42, Topic: "tp", Plain: []byte(`{"type":1}`)}
	got, err := decodeStored(s.encode())
	if err != nil || got.Flags != wire.FlagRedDot || got.Setting != s.Setting || got.Expire != 9 || got.MessageID != s.MessageID ||
		got.Origin != 42 || got.Topic != "tp" || !bytes.Equal(got.Plain, s.Plain) {
		t.Fatalf("%+v %v", got, err)
	}
	for _, b := range [][]byte{nil, []byte("wk"), append([]byte("xk\x01"), make([]byte, 30)...), s.encode()[:26]} {
		if _, err := decodeStored(b); err == nil {
			t.Errorf("%q decoded", b)
		}
	}
}

// Slave connections of one flag live side by side unless they share a
// deviceID; a master's all share one device, told apart by deviceID.
func TestDeviceNumbers(t *testing.T) {
	a, ta := sessionDevice(wire.DeviceApp, wire.DeviceLevelSlave, "d1")
	b, _ := sessionDevice(wire.DeviceApp, wire.DeviceLevelSlave, "d2")
	w, _ := sessionDevice(wire.DeviceWeb, wire.DeviceLevelSlave, "d1")
	a2, _ := sessionDevice(wire.DeviceApp, wire.DeviceLevelSlave, "d1")
	if a == b || a == w || a != a2 || ta != "" || a < 1<<40 {
		t.Fatalf("slave devices %d %d %d %d", a, b, w, a2)
	}
	m1, t1 := sessionDevice(wire.DeviceApp, wire.DeviceLevelMaster, "d1")
	m2, t2 := sessionDevice(wire.DeviceApp, wire.DeviceLevelMaster, "d2")
	if m1 != m2 || t1 == t2 || m1 == a {
		t.Fatalf("master devices %d %s %d %s", m1, t1, m2, t2)
	}
	if tokenDevice(1, 0) == tokenDevice(1, 1) || tokenDevice(1, 0) == tokenDevice(2, 0) {
		t.Fatal("token devices collide")
	}
}

func TestMessageIDsRise(t *testing.T) {
	var g idGen
	g.node = 5
	last := int64(0)
	for range 10000 {
		id := g.next()
		if id <= last {
			t.Fatalf("%d after %d", id, last)
		}
		last = id
	}
	if last>>(nodeBits+seqBits) < (time.Now().UnixMilli()-idEpoch)-1000 {
		t.Fatalf("id %d is not time-based", last)
	}
}

func TestUptimeText(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 61 * time.Second: "1m1s", 26*time.Hour + 5*time.Second: "1d2h0m5s",
		400 * 24 * time.Hour: "1y35d0h0m0s"} {
		if got := uptime(d); got != want {
			t.Errorf("%s: %s, want %s", d, got, want)
		}
	}
}

// Without encryption a fanned-out RECV is encoded once per version and
// viewpoint; a message another front end stored gives no RECV at all.
func TestPushFramesAreMadeOnce(t *testing.T) {
	st := stored{Flags: wire.FlagRedDot, MessageID: 7, Plain: []byte("hi")}
	p := &core.Push{Msg: &core.Message{Conv: core.DirectKey("a", "b"), Sender: "a", ClientID: "c1", Seq: 3, Time: 5000, Payload: st.encode()}}
	x, _ := pushOf(p).plainFrame(5, "b")
	y, _ := pushOf(p).plainFrame(5, "b")
	if &x[0] != &y[0] {
		t.Fatal("encoded twice")
	}
	r, _, err := wire.DecodeFrame(x, 5)
	if rv, ok := r.(wire.Recv); err != nil || !ok || rv.ChannelID != "a" || rv.Flags != wire.FlagRedDot || rv.MessageSeq != 3 ||
		rv.Timestamp != 5 || string(rv.Payload) != "hi" || rv.ClientMsgNo != "c1" {
		t.Fatalf("%+v %v", r, err)
	}
	self, _ := pushOf(p).plainFrame(5, "a")
	if r, _, _ := wire.DecodeFrame(self, 5); r.(wire.Recv).ChannelID != "b" || r.(wire.Recv).Flags != 0 {
		t.Fatalf("sender's own device sees %+v", r)
	}
	foreign := &core.Push{Msg: &core.Message{Conv: core.DirectKey("a", "b"), Sender: "a", Payload: []byte("\x0a\x01a")}}
	if pushOf(foreign).err == nil {
		t.Fatal("foreign payload decoded")
	}
}

// Both front ends register on one registry (one process serves both).
func TestMetricsBesideOpenIMs(t *testing.T) {
	m := core.NewMetrics()
	openim.New(m, slog.New(slog.DiscardHandler))
	New(m, slog.New(slog.DiscardHandler))
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, mf := range mfs {
		have[mf.GetName()] = true
	}
	for _, name := range []string{"app_send_packet_count_total", "app_recvack_packet_count_total", "app_ping_count_total",
		"app_pong_count_total", "app_conn_count", "app_online_user_count", "imbench_target_wukongim_recv_retries_total",
		"online_user_num", "imbench_target_pushes_total"} {
		if !have[name] {
			t.Errorf("no series %s", name)
		}
	}
}
