package summary

import (
	"fmt"
	"strings"
)

// SeedTable is a run's figures in the rows of its seed's own result table:
// the WuKongIM report's for wukongim/… scenarios, the Wildfire report's
// (its Chinese labels, English beside them) for wildfire/…. OpenIM's is the
// main table itself.
type SeedTable struct {
	Title string
	Rows  [][2]string
}

// SeedTable returns the run's seed table, or nil.
func (s Summary) SeedTable() *SeedTable {
	switch system, _, _ := strings.Cut(s.Scenario, "/"); system {
	case "wukongim":
		return wukongimTable(s)
	case "wildfire":
		return wildfireTable(s)
	}
	return nil
}

// sendingSeconds is the time from the first send to the last.
func (s Summary) sendingSeconds() float64 {
	return float64(s.Messages.LastSendMs-s.Messages.FirstSendMs) / 1000
}

// perSecond is n over the sending time (n when it took no time).
func (s Summary) perSecond(n int64) float64 {
	if t := s.sendingSeconds(); t > 0 {
		return float64(n) / t
	}
	return float64(n)
}

const resourcesElsewhere = "per component in report.md's resource table (from Prometheus)"

func wukongimTable(s Summary) *SeedTable {
	d := s.Deliveries
	t := &SeedTable{Title: "As the WuKongIM report has it (Metric | Value)"}
	add := func(k, v string) { t.Rows = append(t.Rows, [2]string{k, v}) }
	add("Total Messages Sent", fmt.Sprint(s.Messages.Sent))
	add("Message Sending Concurrency", fmt.Sprintf("%.0f/second (peak %d)", s.Messages.AvgPerSecond, s.Messages.PeakPerSecond))
	add("Average Send Latency", fmt.Sprintf("%.1f ms (acknowledgement)", s.Latency.Ack.Avg))
	add("Total Messages Received", fmt.Sprint(d.Received))
	add("Message Receiving Concurrency", fmt.Sprintf("%.0f/second", s.perSecond(d.Received)))
	add("Average Receive Latency", fmt.Sprintf("%.1f ms (end to end)", s.Latency.E2E.Avg))
	add("Memory Usage", resourcesElsewhere)
	add("CPU Usage", resourcesElsewhere)
	add("Success Rate", successText(s))
	add("Expected Messages to Receive", fmt.Sprint(d.Expected))
	add("Actual Messages Received", fmt.Sprint(d.Expected-d.Lost))
	return t
}

func wildfireTable(s Summary) *SeedTable {
	t := &SeedTable{Title: "As the Wildfire report has it (内容 | 结果)"}
	add := func(k, v string) { t.Rows = append(t.Rows, [2]string{k, v}) }
	cores := "unknown: set IM_SERVER_CORES"
	if s.ServerCores > 0 {
		cores = fmt.Sprintf("%d cores, the target's machine (%s)", s.ServerCores, s.Target)
	}
	rate := s.perSecond(s.Messages.Sent)
	add("服务资源 Server resources", cores)
	add("发送条数 Messages sent", fmt.Sprint(s.Messages.Sent))
	add("成功率 Success rate", successText(s))
	add("发送时间 Sending time", fmt.Sprintf("%.1f s", s.sendingSeconds()))
	add("发送速率 Send rate", fmt.Sprintf("%.0f/s", rate))
	r := s.Deliveries.Rooms
	if s.ServerCores > 0 {
		c := float64(s.ServerCores)
		add("单核速率 Per-core rate", fmt.Sprintf("%.2f/s", rate/c))
		if r != nil { // the report multiplies the per-core rate by the room's members
			add("单核广播和拉取速率 Per-core broadcast and pull rate", fmt.Sprintf("%.0f/s (%d deliveries received by members present)",
				s.perSecond(r.Received)/c, r.Received))
		} else {
			add("单核分发速率 Per-core dispatch rate", fmt.Sprintf("%.0f/s (%d dispatches: every member of each message's conversation)",
				s.perSecond(s.Messages.Dispatches)/c, s.Messages.Dispatches))
		}
	}
	if r != nil {
		add("观察者接收 Received by members (a chatroom may drop)", fmt.Sprintf("%d of %d deliveries to members present when sent, %.2f%% missed (%d)",
			r.Received, r.Expected, r.MissRate*100, r.Missed))
	}
	if w := s.Deliveries.Watchers; w != nil {
		who := "the watching client"
		if w.Users > 1 {
			who = fmt.Sprintf("the %d watching clients", w.Users)
		}
		add("观察者 Watcher (the report: 肉眼无法察觉, no loss seen by eye)",
			fmt.Sprintf("%d of %d deliveries received by %s, %d missing", w.Received, w.Expected, who, w.Expected-w.Received))
	}
	add("发送延迟 Send latency", fmt.Sprintf("acknowledged in %.1f ms on average; delivered in %.1f ms (p99 %.1f)",
		s.Latency.Ack.Avg, s.Latency.E2E.Avg, s.Latency.E2E.P99))
	return t
}

// successText is acknowledged over sent and whether every expected
// delivery (the watcher's included) arrived.
func successText(s Summary) string {
	m := s.Messages
	if m.Sent == 0 {
		return "n/a (nothing sent)"
	}
	return fmt.Sprintf("%.4g%% acknowledged (%d of %d); %s", float64(m.Acked)/float64(m.Sent)*100, m.Acked, m.Sent, IntegrityText(s))
}

// String renders the table as Markdown.
func (t *SeedTable) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s\n\n| | |\n|---|---|\n", t.Title)
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}
	return b.String()
}
