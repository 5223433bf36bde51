package runner

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// A gateway that takes its first n connections and then holds every
// other one open without a byte, as a server out of open files leaves a
// connection in its backlog.
func fullGateway(t *testing.T, to string, n int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
			if i >= n {
				continue // silent: never answered
			}
			up, err := net.Dial("tcp", strings.TrimPrefix(to, "tcp://"))
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			held = append(held, up)
			mu.Unlock()
			go io.Copy(up, c)
			go io.Copy(c, up)
		}
	}()
	return "tcp://" + ln.Addr().String()
}

// Users that cannot get on cost a hold run's login phase IM_LOGIN_WITHIN,
// not their retries × timeouts: at its end they count as never online. And
// a run whose objective (IM_STOP_WHEN_LOST) is lost once its users logged
// in skips its hold: a limit search's users step decided as soon as it is.
func TestLoginsEndWithinTheirTimeAndALostHoldIsSkipped(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	tg.TCPAddr = fullGateway(t, tg.TCPAddr, 12)
	script := writeScript(t, `import im from 'imbench';
export const plan = im.workload({ name: 'wukongim/hold-full', classes: [{ kind: 'online', users: 20 }] });
export const options = { hold: '5m' };
`)
	_, out, s := runWuKongIM(t, tg, script, "full1", "IM_LOGIN_WITHIN=3s", `IM_STOP_WHEN_LOST={"never_online":["count==0"]}`,
		"IM_RECONNECT_DELAY=200ms", "IM_RECONNECT_CAP=400ms")
	// The preflight's gateway check takes connections of the twelve too.
	never := s.Users.NeverOnline
	if never == 0 || s.Users.OnlinePeak == 0 || never+s.Users.OnlinePeak != 20 {
		t.Fatalf("never online %d, online %d of 20\n%s", never, s.Users.OnlinePeak, out)
	}
	for _, want := range []string{"not online within the login time (IM_LOGIN_WITHIN 3s)",
		"the objective is lost once the users logged in (never_online count==0 (" + itoa(never) + ")): the hold is skipped"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q:\n%s", want, out)
		}
	}
	if s.Users.HeldSeconds > 1 {
		t.Fatalf("held %g s: the hold was not skipped", s.Users.HeldSeconds)
	}
}
