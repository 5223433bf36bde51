package plan

import (
	"strings"
	"testing"
	"time"
)

// Forty agents with five customers each, both directions; the customers
// log in 20 s after sending begins and write from then on.
func TestHubsTalkBothWaysAndLateCustomersWriteOnceOnline(t *testing.T) {
	p := build(t, workload(t, `{"kind":"hubs","hubs":40,"partners":5,"loginAt":"20s","totalRate":40,"duration":"60s"}`))
	if p.Users != 240 || len(p.Friends) != 200 || p.Count(Immediate) != 40 || p.Count(Timed) != 200 {
		t.Fatalf("users %d friends %d immediate %d timed %d", p.Users, len(p.Friends), p.Count(Immediate), p.Count(Timed))
	}
	sent := map[uint32]int{}
	first := map[uint32]time.Duration{}
	for m, due := range p.Schedule() {
		if sent[m.Sender] == 0 {
			first[m.Sender] = due
		}
		sent[m.Sender]++
	}
	for u := uint32(0); u < 240; u++ {
		if sent[u] == 0 {
			t.Fatalf("user %d writes nothing", u)
		}
		if u >= 40 && first[u] < 20*time.Second {
			t.Fatalf("customer %d writes at %s, before its login at 20s", u, first[u])
		}
	}
	if got := p.Planned(); got != 40*60 {
		t.Fatalf("%d messages planned, not 2400", got)
	}
	for _, bad := range []struct{ class, want string }{
		{`{"kind":"hubs","hubs":2,"partners":3,"onlineShare":0.5,"rate":1,"messages":2}`, "every one logs in"},
		{`{"kind":"hubs","hubs":2,"partners":3,"direction":"toHubs","loginAt":"5s","rate":1,"messages":2}`, "nobody could send"},
		{`{"kind":"hubs","hubs":2,"rate":1,"messages":2}`, "give hubs and partners"},
		{`{"kind":"hubs","hubs":2,"partners":3,"direction":"up","rate":1,"messages":2}`, `direction must be`},
		{`{"kind":"hubs","hubs":2,"partners":3,"loginAt":"-5s","rate":1,"messages":2}`, `loginAt "-5s" is not a positive duration`},
	} {
		if _, err := workload(t, bad.class).Build(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.class, err, bad.want)
		}
	}
	// Customers only read: a share of them logs in late and pulls.
	p = build(t, workload(t, `{"kind":"hubs","hubs":2,"partners":5,"direction":"toPartners","allOnline":true,"loginAt":"10s","loginAtShare":0.4,"rate":1,"messages":3}`))
	if p.Count(Timed) != 4 || p.Count(Immediate) != 8 || p.Planned() != 30 {
		t.Fatalf("timed %d immediate %d planned %d", p.Count(Timed), p.Count(Immediate), p.Planned())
	}
}
