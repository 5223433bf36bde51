package summary

import (
	"strings"
	"testing"
)

// Wildfire's 百人群 row from its own figures: 100,000 messages in 74.6 s on
// 16 cores, 10,000,000 dispatches: 1,340 a second, 83.75 a core, 8,375
// dispatches a core.
func TestWildfireTableComputesItsPerCoreRates(t *testing.T) {
	var s Summary
	s.Scenario, s.Target, s.ServerCores = "wildfire/group100", "reference", 16
	s.Messages.Sent, s.Messages.Acked, s.Messages.Dispatches = 100000, 100000, 10_000_000
	s.Messages.FirstSendMs, s.Messages.LastSendMs = 1_000_000, 1_074_627
	s.Deliveries.Expected = 5_000_000
	got := s.SeedTable().String()
	for _, want := range []string{"| 发送速率 Send rate | 1340/s |", "| 单核速率 Per-core rate | 83.75/s |",
		"| 单核分发速率 Per-core dispatch rate | 8375/s", "16 cores", "100% (all 5000000 expected deliveries arrived)"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	s.ServerCores = 0
	if got := s.SeedTable().String(); !strings.Contains(got, "unknown: set IM_SERVER_CORES") || strings.Contains(got, "单核") {
		t.Errorf("without cores:\n%s", got)
	}
}

func TestWuKongIMTableSaysExpectedAndActual(t *testing.T) {
	var s Summary
	s.Scenario = "wukongim/reliability"
	s.Messages.Sent, s.Messages.Acked = 1000, 1000
	s.Deliveries.Expected, s.Deliveries.Received, s.Deliveries.Lost = 20000, 19990, 10
	got := s.SeedTable().String()
	for _, want := range []string{"| Expected Messages to Receive | 20000 |", "| Actual Messages Received | 19990 |", "10 of 20000 expected deliveries lost"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if (Summary{Scenario: "openim/test1"}).SeedTable() != nil {
		t.Error("OpenIM's table is the main one")
	}
}

// Wildfire's 千人聊天室 row from its own figures: 10,000 messages in 39 s on
// 8 cores, 256 a second, 32 a core; the broadcast-and-pull rate counts what
// the members present received, and what they missed is said beside it.
func TestWildfireChatroomRows(t *testing.T) {
	var s Summary
	s.Scenario, s.Target, s.ServerCores = "wildfire/chatroom1k", "reference", 8
	s.Messages.Sent, s.Messages.Acked = 10000, 10000
	s.Messages.FirstSendMs, s.Messages.LastSendMs = 1_000_000, 1_039_000
	s.Deliveries.Rooms = &RoomsSummary{Expected: 10_000_000, Received: 9_984_000, Missed: 16_000}
	s.Deliveries.Rooms.SetRate()
	got := s.SeedTable().String()
	for _, want := range []string{"| 单核速率 Per-core rate | 32.05/s |", "| 单核广播和拉取速率 Per-core broadcast and pull rate | 32000/s",
		"9984000 of 10000000 deliveries to members present when sent, 0.16% missed (16000)"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "单核分发速率") {
		t.Errorf("a chatroom has no dispatch row:\n%s", got)
	}
}

// The watcher's exact count takes the place of the report's "no loss seen
// by eye", and a merge of processes adds their counts.
func TestWildfireWatcherRow(t *testing.T) {
	var s Summary
	s.Scenario, s.Target = "wildfire/single-send", "reference"
	s.Messages.Sent, s.Messages.Acked = 1500, 1500
	s.Deliveries.Watchers = &WatchersSummary{Users: 1, Expected: 1500, Received: 1497}
	if got := s.SeedTable().String(); !strings.Contains(got, "| 观察者 Watcher (the report: 肉眼无法察觉, no loss seen by eye) | 1497 of 1500 deliveries received by the watching client, 3 missing |") {
		t.Errorf("watcher row missing in\n%s", got)
	}
	s.Deliveries.Watchers = nil
	if got := s.SeedTable().String(); strings.Contains(got, "观察者 Watcher") {
		t.Errorf("a run without watchers shows a watcher row:\n%s", got)
	}
}
