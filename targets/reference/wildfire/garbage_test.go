package wildfire_test

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// Garbage before and after a login, oversized frames and illegal flags
// close that connection only; the others are served on, and the closed
// ones leave no goroutine behind.
func TestGarbageClosesOnlyThatConnection(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{ConnectTimeout: 300 * time.Millisecond})
	a, _ := online(t, tg, "a")
	b, _ := online(t, tg, "b")
	rng := rand.New(rand.NewPCG(1, 2))
	junk := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	before := runtime.NumGoroutine()
	afterLogin := [][]byte{
		{0xe8, 0x00},                   // DISCONNECT with DUP
		{0x30, 0xff, 0xff, 0xff, 0x7f}, // a body over 256 KiB
		{0x30, 0xff, 0xff, 0xff, 0xff, 0x01},
		{0x00, 0x01, 0x02},       // type 0
		{0xf0, 0x00},             // type 15
		{0x36, 0x02, 0x00, 0x00}, // PUBLISH QoS 3
		{0x32, 0x01, 0x00},       // PUBLISH, short
		{0x32, 0x07, 0x00, 0x03, 'M', '+', 'S', 0x00, 0x01}, // wildcard topic
		{0x32, 0x06, 0x00, 0x02, 'M', 'S', 0x00, 0x00},      // packet id 0
		{0xc0, 0x01, 0x00},       // PINGREQ with a body
		{0x10, 0x02, 0x00, 0x00}, // a second CONNECT
	}
	for i := range 40 {
		c := dial(t, tg)
		if i%2 == 1 {
			cr := getToken(t, tg, "junk", "c-junk", wire.PlatformLinux)
			if ack := c.connect(cr); ack.ReturnCode != 0 {
				t.Fatalf("#%d: %s", i, ack.ReturnCode)
			}
			c.raw(afterLogin[(i/2)%len(afterLogin)])
		} else {
			c.raw(junk(1 + rng.IntN(3000)))
		}
		if !c.closedWithin(3 * time.Second) {
			t.Fatalf("#%d: still open", i)
		}
		c.nc.Close()
	}
	a.mustSend(wire.ConvPrivate, "b", "still here")
	if n := b.notify(2 * time.Second); n.GetHead() != 1 {
		t.Fatalf("after garbage: %v", n)
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before+5 {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
