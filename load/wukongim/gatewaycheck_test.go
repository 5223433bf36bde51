package wukongim_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	"github.com/imbench/imbench/targets/reference/wukongim"
)

func checkGateways(t *testing.T, drops wukongim.LoginDrops) (error, float64) {
	t.Helper()
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	if err := tg.Front.SetLoginDrops(drops); err != nil {
		t.Fatal(err)
	}
	r := reference{tg}
	tgt := r.Target()
	_, proto, err := tgt.Open()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = proto.(engine.GatewayChecker).CheckGateways(ctx)
	return err, tg.Counter(t, "imbench_target_fault_login_drops_total")
}

// The pre-load check retries a manager's CONNECT that the server closed
// unanswered, however late the close (a real WuKongIM closes about 3 s
// after, wukongim.md §17); one that closed every attempt is named for what
// the server did.
func TestTheGatewayCheckRetriesALateClose(t *testing.T) {
	testmachine.Shared(t)
	err, drops := checkGateways(t, wukongim.LoginDrops{Close: 0.5, CloseAfter: 2500 * time.Millisecond, Seed: 2})
	if err != nil || drops == 0 {
		t.Fatalf("with half the logins closed 2.5 s after the CONNECT: %v (%g closed)", err, drops)
	}
	err, drops = checkGateways(t, wukongim.LoginDrops{Close: 1, CloseAfter: 300 * time.Millisecond, Seed: 1})
	if err == nil || drops != 4 || !strings.Contains(err.Error(), "closed the connection without a CONNACK to the manager's CONNECT in each of 4 attempts (300ms, 300ms, 300ms, 300ms after it)") {
		t.Fatalf("every login closed: %v (%g closed)", err, drops)
	}
}
