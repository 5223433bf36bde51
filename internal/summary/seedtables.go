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
	if s.Messages.Planned == 0 && s.Messages.Sent == 0 {
		return wildfireHoldTable(s)
	}
	t := &SeedTable{Title: wildfireTitle}
	add := func(k, v string) { t.Rows = append(t.Rows, [2]string{k, v}) }
	// The report's 2.2 sends to receivers online and names its rows 收发
	// (send and receive); its other tests, 发送 (send).
	verb, en, count, what := "发送", "Send", fmt.Sprint(s.Messages.Sent), "Messages sent"
	if sendsAndReceives(s) {
		verb, en, what = "收发", "Send-and-receive", "Messages sent and received"
		count = fmt.Sprintf("%d sent, %d received by their receivers online", s.Messages.Sent, s.Deliveries.Received)
	}
	rate := s.perSecond(s.Messages.Sent)
	add("服务资源 Server resources", wildfireCores(s))
	add(verb+"条数 "+what, count)
	add("成功率 Success rate", successText(s))
	add(verb+"时间 "+en+" time", fmt.Sprintf("%.1f s", s.sendingSeconds()))
	add(verb+"速率 "+en+" rate", fmt.Sprintf("%.0f/s", rate))
	r := s.Deliveries.Rooms
	if s.ServerCores > 0 {
		c := float64(s.ServerCores)
		switch {
		case r != nil: // the report multiplies the per-core rate by the room's members
			add("单核速率 Per-core rate", fmt.Sprintf("%.2f/s", rate/c))
			add("单核广播和拉取速率 Per-core broadcast and pull rate", fmt.Sprintf("%.0f/s (%d deliveries received by members present)",
				s.perSecond(r.Received)/c, r.Received))
		default:
			add(verb+"单核速率 Per-core rate", fmt.Sprintf("%.2f/s", rate/c))
			if verb == "发送" { // 2.2 has no dispatch row
				add(verb+"单核分发速率 Per-core dispatch rate", fmt.Sprintf("%.0f/s (%d dispatches: every member of each message's conversation)",
					s.perSecond(s.Messages.Dispatches)/c, s.Messages.Dispatches))
			}
		}
	}
	if r != nil {
		add("观察者接收 Received by members (a chatroom may drop)", RoomsText(r))
	}
	if w := s.Deliveries.Watchers; w != nil {
		who := "the watching client"
		if w.Users > 1 {
			who = fmt.Sprintf("the %d watching clients", w.Users)
		}
		add("观察者 Watcher (the report: 肉眼无法察觉, no loss seen by eye)",
			WatcherText(w, who))
	}
	add(verb+"延迟 "+en+" latency", fmt.Sprintf("acknowledged in %.1f ms on average; delivered in %.1f ms (p99 %.1f)",
		s.Latency.Ack.Avg, s.Latency.E2E.Avg, s.Latency.E2E.P99))
	return t
}

const wildfireTitle = "As the Wildfire report has it (内容 | 结果)"

func wildfireCores(s Summary) string {
	if s.ServerCores > 0 {
		return fmt.Sprintf("%d cores the target may use (%s)", s.ServerCores, s.Target)
	}
	return "unknown: set IM_SERVER_CORES"
}

// sendsAndReceives tells the report's 收发 test (2.2) from its 发送 ones:
// one-to-one messages whose receivers are online to get them, and no
// watching client standing in for receivers that are not.
func sendsAndReceives(s Summary) bool {
	d := s.Deliveries
	_, single := d.ByType["single"]
	return single && len(d.ByType) == 1 && d.Rooms == nil && d.Watchers == nil && d.Expected > 0
}

// serverOnline says where the server's own count of users online is: the
// summary has the generator's only.
const serverOnline = "not in summary.json: the server's own gauge in Prometheus, wildfire_online_users " +
	"(wildfire-exporter; the reference target's imbench_target_wildfire_online_users), the dashboard's Online users panel"

// wildfireHoldTable is the report's 1. 单机百万长连接测试: users connect and
// stay online, no drops, nothing sent.
func wildfireHoldTable(s Summary) *SeedTable {
	t := &SeedTable{Title: wildfireTitle}
	add := func(k, v string) { t.Rows = append(t.Rows, [2]string{k, v}) }
	u := s.Users
	add("服务资源 Server resources", wildfireCores(s))
	add("长连接数 Connections held", fmt.Sprintf("%d users online at once (the peak), of %d due to log in; %d logins",
		u.OnlinePeak, u.PlannedOnline, u.Logins))
	held := fmt.Sprintf("%.1f s from the first login to the last close, logging in and closing included",
		s.EndedAt.Sub(s.StartedAt).Seconds())
	if u.HeldSeconds > 0 {
		held = fmt.Sprintf("%.1f s with every user online (the hold); ", u.HeldSeconds) + held
	}
	add("保持时间 Held for", held)
	add("掉线 Drops (the report: 无掉线, none)", dropsText(u))
	add("服务端在线数 Online by the server's count", serverOnline)
	add("CPU利用率 CPU usage (the report: 十核左右, about ten cores)", resourcesElsewhere)
	return t
}

// dropsText counts the connections the server ended and the users who
// never got online.
func dropsText(u UsersSummary) string {
	text := fmt.Sprintf("%d disconnects, %d reconnects", u.Disconnects, u.Reconnects)
	if u.Disconnects == 0 {
		text = "none (0 disconnects)"
	}
	if u.ConnectErrors > 0 || u.NeverOnline > 0 {
		text += fmt.Sprintf("; %d connect errors, %d users never online", u.ConnectErrors, u.NeverOnline)
	}
	return text
}

// successText is acknowledged over sent and whether every expected
// delivery (the watcher's included) arrived.
func successText(s Summary) string {
	m := s.Messages
	if m.Sent == 0 {
		return "n/a (nothing sent)"
	}
	delivered := IntegrityText(s)
	if r := s.Deliveries.Rooms; s.Deliveries.Expected == 0 && r != nil && r.Integrity != nil {
		delivered = fmt.Sprintf("chatrooms: %.4g%% of deliveries to members present arrived", *r.Integrity*100)
	}
	return fmt.Sprintf("%.4g%% acknowledged (%d of %d); %s", float64(m.Acked)/float64(m.Sent)*100, m.Acked, m.Sent, delivered)
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

// WatcherText says what the watchers received of what they were owed, and
// that what they did not is not "missing": it is among the run's lost,
// late and unchecked (and owed to a watcher never online), which the
// integrity row tells apart.
func WatcherText(w *WatchersSummary, who string) string {
	out := fmt.Sprintf("%d of %d deliveries received by %s", w.Received, w.Expected, who)
	if n := w.Expected - w.Received; n > 0 {
		out += fmt.Sprintf("; %d not received (among the lost, late and unchecked of Message Integrity)", n)
	}
	return out
}
