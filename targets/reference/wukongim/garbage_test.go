package wukongim_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// Random bytes before and after a login, oversized and undecodable frames:
// before a login the connection closes; either way the server serves on.
func TestGarbageKeepsTheServerServing(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{ConnectTimeout: 200 * time.Millisecond, AuthFailDelay: 200 * time.Millisecond})
	users(t, tg, "u1", "u2")
	rng := rand.New(rand.NewPCG(1, 2))
	junk := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	oversized := []byte{byte(wire.TypeSend) << 4, 0xff, 0xff, 0xff, 0x7f}
	badSend := append([]byte{byte(wire.TypeSend) << 4, 3}, 1, 2, 3)
	for _, via := range both {
		for i := range 40 {
			c := dial(t, tg, via)
			if i%2 == 1 {
				c.connect(login{uid: "u1", token: "tk-u1", deviceID: "junk"})
			}
			switch i % 8 {
			case 0, 1:
				c.raw(junk(1 + rng.IntN(2000)))
			case 2, 3:
				c.raw(oversized)
			case 4, 5:
				c.raw(badSend)
			default:
				c.raw(append([]byte{0x00}, junk(10)...))
			}
			if i%2 == 0 && !c.closedWithin(5*time.Second) {
				t.Fatalf("%s #%d: still open", via, i)
			}
			// A logged-in one may have sent frames that decode (PINGs,
			// a SEND) or half of one; it answers or waits, or closes.
			for i%2 == 1 {
				if _, err := c.next(300 * time.Millisecond); err != nil {
					break
				}
			}
			c.close()
		}
		a, b := online(t, tg, via, "u1"), online(t, tg, via, "u2")
		a.write(a.sendPacket("u2", wire.ChannelPerson, "still here"))
		if _, text := b.recv(5 * time.Second); text != "still here" {
			t.Fatalf("after garbage: %q", text)
		}
	}
}
