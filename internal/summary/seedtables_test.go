package summary

import (
	"strings"
	"testing"
	"time"
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
	for _, want := range []string{"| 发送速率 Send rate | 1340/s |", "| 发送时间 Send time | 74.6 s |", "| 发送单核速率 Per-core rate | 83.75/s |",
		"| 发送单核分发速率 Per-core dispatch rate | 8375/s", "16 cores", "100% (all 5000000 expected deliveries arrived)"} {
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
		"| 观察者接收 Received by members (a chatroom may drop) | 99.84% (9984000 of 10000000 deliveries to members present at sending arrived, 0.16% missed: 16000) |",
		"| 成功率 Success rate | 100% acknowledged (10000 of 10000); chatrooms: 99.84% of deliveries to members present arrived |"} {
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
	if got := s.SeedTable().String(); !strings.Contains(got, "| 观察者 Watcher (the report: 肉眼无法察觉, no loss seen by eye) | 1497 of 1500 deliveries received by the watching client; 3 not received (among the lost, late and unchecked of Message Integrity) |") {
		t.Errorf("watcher row missing in\n%s", got)
	}
	s.Deliveries.Watchers = nil
	if got := s.SeedTable().String(); strings.Contains(got, "观察者 Watcher") {
		t.Errorf("a run without watchers shows a watcher row:\n%s", got)
	}
}

// Wildfire's 2.2 收发消息测试 sends to receivers online: its rows are
// 收发条数, 收发时间, 收发速率, 收发单核速率 (719 s, 13,908 a second, 869 a
// core on 16 cores), and it has no dispatch row; 2.1 keeps 发送.
func TestWildfireSendAndReceiveRows(t *testing.T) {
	var s Summary
	s.Scenario, s.Target, s.ServerCores = "wildfire/single-send-recv", "reference", 16
	s.Messages.Sent, s.Messages.Acked, s.Messages.Dispatches = 10_000_000, 10_000_000, 20_000_000
	s.Messages.FirstSendMs, s.Messages.LastSendMs = 1_000_000, 1_719_000
	s.Deliveries.Expected, s.Deliveries.Received = 10_000_000, 10_000_000
	s.Deliveries.ByType = map[string]DeliveriesByType{"single": {Expected: 10_000_000, Received: 10_000_000}}
	got := s.SeedTable().String()
	for _, want := range []string{"| 收发条数 Messages sent and received | 10000000 sent, 10000000 received by their receivers online |",
		"| 收发时间 Send-and-receive time | 719.0 s |", "| 收发速率 Send-and-receive rate | 13908/s |", "| 收发单核速率 Per-core rate | 869.26/s |",
		"| 收发延迟 Send-and-receive latency |"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "发送") || strings.Contains(got, "分发") {
		t.Errorf("2.2 has neither 发送 rows nor a dispatch row:\n%s", got)
	}
	s.Scenario = "wildfire/single-send" // receivers offline, a watcher online
	s.Deliveries.Watchers = &WatchersSummary{Users: 1, Expected: 10_000, Received: 10_000}
	s.Deliveries.Expected, s.Deliveries.Received = 10_000, 10_000
	got = s.SeedTable().String()
	for _, want := range []string{"| 发送条数 Messages sent | 10000000 |", "| 发送速率 Send rate | 13908/s |", "| 发送单核分发速率 Per-core dispatch rate |"} {
		if !strings.Contains(got, want) {
			t.Errorf("2.1: missing %q in\n%s", want, got)
		}
	}
}

// Wildfire's 1. 单机百万长连接测试 holds users online: its rows are the
// connections held, for how long, the drops, and where the server's own
// online count is; not a message table with 发送条数 0.
func TestWildfireHoldRows(t *testing.T) {
	var s Summary
	s.Scenario, s.Target = "wildfire/c1000k", "reference"
	s.StartedAt = time.Unix(1_800_000_000, 0)
	s.EndedAt = s.StartedAt.Add(63500 * time.Millisecond)
	s.Users.Registered, s.Users.PlannedOnline, s.Users.Logins, s.Users.OnlinePeak = 2000, 2000, 2000, 2000
	got := s.SeedTable().String()
	for _, want := range []string{"| 长连接数 Connections held | 2000 users online at once (the peak), of 2000 due to log in; 2000 logins |",
		"| 保持时间 Held for | 63.5 s from the first login to the last close", "| 掉线 Drops (the report: 无掉线, none) | none (0 disconnects) |",
		"| 服务端在线数 Online by the server's count | not in summary.json: the server's own gauge in Prometheus, wildfire_online_users"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "条数") || strings.Contains(got, "速率") {
		t.Errorf("a holding run has no message rows:\n%s", got)
	}
	s.Users.Disconnects, s.Users.Reconnects = 3, 3
	if got := s.SeedTable().String(); !strings.Contains(got, "| 掉线 Drops (the report: 无掉线, none) | 3 disconnects, 3 reconnects |") {
		t.Errorf("drops:\n%s", got)
	}
	s.Users.HeldSeconds = 60.02
	if got := s.SeedTable().String(); !strings.Contains(got, "| 保持时间 Held for | 60.0 s with every user online (the hold); 63.5 s from the first login") {
		t.Errorf("the hold itself:\n%s", got)
	}
}
