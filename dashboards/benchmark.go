package dashboards

const run = `run_id="$run_id"`

// target selects the run's target's own series (the label every system
// under test's scrape job sets).
const target = `target=~"$target"`

// logQuery is the log panel's LogsQL: the run's own lines (the runner pushes
// them with stream labels run_id, job=imbench, target, scenario, level) and
// the target's (the reference target pushes with job=imbench-target and its
// target), the latter bounded by the dashboard's time range.
const logQuery = `{run_id="$run_id"} or {job="imbench-target", target="$target"}`

// imBenchmark is what people watch during a test: load, integrity,
// latency, the seed's per-component resource table, the machine, the logs.
func imBenchmark() Dashboard {
	var l layout
	l.row("Load")
	l.add(timeseries("Online users", "short", "Users logged in, over all imbench processes (segments) of the run, and as the target's server counts them: every user it holds, other runs' and other tools' too: OpenIM's msggateway (online_user_num; the reference target's counts every protocol's), else WuKongIM's (app_online_user_count), else Wildfire's admin API through wildfire-exporter (wildfire_online_users).",
		series(`imbench:online_users{`+run+`}`, "online"),
		// The first of them the stack scrapes: each server says it one way.
		series(`sum(online_user_num{`+target+`}) or sum(app_online_user_count{`+target+`}) or sum(wildfire_online_users{`+target+`})`, "the server's count: every user it holds, other runs' too")), 8, 8)
	l.add(timeseries("Messages per minute", "short", "Messages sent and deliveries received per minute (1 m rate × 60), and as the server counts them where it exports them: OpenIM's msg service's messages accepted (single_ and group_chat_msg_process_success_total) and msgtransfer's batch inserts into its database (msg_insert_mongo_success_total: one per batch of messages, so fewer than the messages stored; the reference target's one per message), every sender's.",
		series(`60 * imbench:messages_sent:rate1m{`+run+`}`, "sent"),
		series(`60 * imbench:deliveries:rate1m{`+run+`}`, "delivered"),
		series(`60 * (sum(rate(single_chat_msg_process_success_total{`+target+`}[1m])) + sum(rate(group_chat_msg_process_success_total{`+target+`}[1m])))`, "accepted (the server's count)"),
		series(`60 * sum(rate(msg_insert_mongo_success_total{`+target+`}[1m]))`, "batch inserts into MongoDB (the server's count)")), 10, 8)
	l.add(stat("Sent", "short", "Messages sent in this run.", series(`imbench:messages_sent:total{`+run+`}`, "")), 6, 4)
	l.add(stat("Delivered / expected", "short", "Deliveries received (push and pull) and expected (acknowledged messages × recipients who log in).",
		series(`imbench:deliveries:total{`+run+`}`, "received"),
		series(`imbench:deliveries_expected:total{`+run+`}`, "expected")), 6, 4)

	l.row("Integrity")
	// The reconciliation arrives in the runner's last remote write; these
	// read its own imbench_* series, which keep that write's timestamp,
	// rather than a rule evaluated after it.
	l.add(stat("Integrity", "percentunit", "Share of expected deliveries that arrived; set when the run reconciles at its end.",
		series(`1 - (sum(imbench_lost_total{`+run+`}) + (sum(imbench_late_total{`+run+`}) or vector(0)) + (sum(imbench_unchecked_total{`+run+`}) or vector(0))) / sum(imbench_deliveries_expected_total{`+run+`})`, "")), 4, 5)
	l.add(stat("Lost / late / unchecked", "short", "Expected deliveries that never arrived, counted exactly when the run reconciles: lost, late (the server holds the message, read back after the drain, but did not deliver it in time) and unchecked (the server did not answer that read).",
		series(`sum(imbench_lost_total{`+run+`})`, "lost"),
		series(`sum(imbench_late_total{`+run+`})`, "late"),
		series(`sum(imbench_unchecked_total{`+run+`})`, "unchecked")), 4, 5)
	l.add(stat("Duplicates", "short", "Messages pushed again after they had arrived.",
		series(`imbench:duplicates:total{`+run+`}`, "")), 4, 5)
	l.add(stat("Out of order", "short", "Messages pushed after a later message of the same sender and conversation.",
		series(`imbench:out_of_order:total{`+run+`}`, "")), 4, 5)
	l.add(stat("Corrupted", "short", "Messages whose bytes or routing changed on the way.",
		series(`sum(imbench_corrupted_total{`+run+`})`, "")), 4, 5)
	l.add(stat("Send failures", "short", "Sends the server refused or that could not be written (failed), and sends with no answer within the timeout (unanswered: not failed, the server may have stored them).",
		series(`sum(imbench_send_failures_total{`+run+`})`, "failed"),
		series(`sum(imbench_sends_unanswered_total{`+run+`})`, "unanswered")), 4, 5)
	l.add(timeseries("Connect errors and disconnects", "short", "Per minute, over all imbench processes (segments) of the run.",
		series(`sum(increase(imbench_connect_errors_total{`+run+`}[1m]))`, "connect errors"),
		series(`sum(increase(imbench_disconnects_total{`+run+`}[1m]))`, "disconnects"),
		series(`sum(increase(imbench_reconnects_total{`+run+`}[1m]))`, "reconnects")), 24, 7)

	l.row("Latency")
	l.add(timeseries("End-to-end latency", "s", "Create → received and decoded, over the last minute. max is the top native-histogram bucket; summary.json has the exact one.",
		series(`imbench:e2e_latency_seconds:p50{`+run+`}`, "p50"),
		series(`imbench:e2e_latency_seconds:p95{`+run+`}`, "p95"),
		series(`imbench:e2e_latency_seconds:p99{`+run+`}`, "p99"),
		series(`imbench:e2e_latency_seconds:max{`+run+`}`, "max")), 12, 8)
	l.add(timeseries("Send → acknowledgement", "s", "From writing a message to the server's answer, over the last minute.",
		series(`imbench:ack_latency_seconds:p50{`+run+`}`, "p50"),
		series(`imbench:ack_latency_seconds:p95{`+run+`}`, "p95"),
		series(`imbench:ack_latency_seconds:p99{`+run+`}`, "p99"),
		series(`imbench:ack_latency_seconds:max{`+run+`}`, "max")), 12, 8)

	l.row("Resources")
	l.add(resourceTable(), 24, 9)
	l.add(timeseries("CPU per component", "percent", "Per process group, in % of one core as the OpenIM report counts (210 % = 2.1 cores).",
		series(`100 * imbench:component_cpu_cores`, "{{component}}")), 12, 8)
	l.add(timeseries("Resident memory per component", "bytes", "RSS per process group.",
		series(`imbench:component_memory_rss_bytes`, "{{component}}")), 12, 8)

	l.row("Machine")
	l.add(timeseries("CPU", "percentunit", "Busy share of all cores.",
		series(`imbench:node_cpu_utilisation{instance=~"$instance"}`, "{{instance}}")), 8, 7)
	l.add(timeseries("Memory used", "bytes", "Total minus available.",
		series(`imbench:node_memory_used_bytes{instance=~"$instance"}`, "{{instance}}")), 8, 7)
	l.add(timeseries("Network", "Bps", "All interfaces but container bridges; loopback counts, as local load uses it.",
		series(`imbench:node_network_receive_bytes:rate30s{instance=~"$instance"}`, "receive {{instance}}"),
		series(`imbench:node_network_transmit_bytes:rate30s{instance=~"$instance"}`, "transmit {{instance}}")), 8, 7)

	// A limit search's state while it runs (imbench limit writes these);
	// each step is a run of its own, chosen above by its run id
	// (<search id>_s<n>).
	l.row("Limit search")
	search := `search_id="$search_id"`
	l.add(stat("Step", "short", "The step under way of the search chosen (search_id), and its load asked (msg/s or users).",
		series(`imbench_limit_step{`+search+`}`, "step"),
		series(`imbench_limit_asked{`+search+`}`, "asked")), 6, 5)
	l.add(stat("Held / broken", "short", "The highest load held within the objective so far, and the lowest that broke it.",
		series(`imbench_limit_held_load{`+search+`}`, "held"),
		series(`imbench_limit_broken_load{`+search+`}`, "broken")), 6, 5)
	l.add(timeseries("Steps", "short", "Each step's load asked and achieved, and whether it held the objective (1) or broke it (0).",
		series(`imbench_limit_asked{`+search+`}`, "asked"),
		series(`imbench_limit_achieved{`+search+`}`, "achieved"),
		series(`imbench_limit_held{`+search+`}`, "held")), 12, 5)

	l.row("Logs")
	l.add(Panel{Type: "logs", Title: "Log of the run", Datasource: logs(),
		Description: "From VictoriaLogs: imbench's own lines of the run (job=imbench, by run_id) and the reference target's (job=imbench-target, over the time range).",
		Targets:     []Target{{Expr: logQuery, QueryType: "instant", MaxLines: 1000}},
		Options:     map[string]any{"showTime": true, "wrapLogMessage": true, "sortOrder": "Descending"}}, 24, 8)

	return dashboard("imbench-main", "IM benchmark", "An imbench run: load, delivery integrity, latency and the resources of the server's parts.",
		[]any{
			variable("target", "Target", `label_values(imbench_messages_sent_total{`+run+`}, target)`, false),
			variable("instance", "Machine", `label_values(node_uname_info, instance)`, true),
			variable("search_id", "Limit search", `label_values(imbench_limit_step, search_id)`, false),
		}, l.panels)
}

// resourceTable is the OpenIM report's resource table: per component, CPU
// as % of one core and resident memory, average and peak over the range.
func resourceTable() Panel {
	q := func(expr string) Target { return Target{Expr: expr, Instant: true, Format: "table"} }
	override := func(name, unit string) map[string]any {
		return map[string]any{"matcher": map[string]any{"id": "byRegexp", "options": name},
			"properties": []any{map[string]any{"id": "unit", "value": unit}}}
	}
	return Panel{Type: "table", Title: "Resources per component",
		Description: "Over the dashboard's time range (choose the run's). CPU in % of one core, as the OpenIM report's table.",
		Targets: []Target{
			q(`100 * avg_over_time(imbench:component_cpu_cores[$__range])`),
			q(`100 * max_over_time(imbench:component_cpu_cores[$__range])`),
			q(`avg_over_time(imbench:component_memory_rss_bytes[$__range])`),
			q(`max_over_time(imbench:component_memory_rss_bytes[$__range])`),
			q(`max_over_time(imbench:component_processes[$__range])`),
		},
		Transformations: []any{
			map[string]any{"id": "merge", "options": map[string]any{}},
			map[string]any{"id": "organize", "options": map[string]any{
				"excludeByName": map[string]any{"Time": true},
				"renameByName": map[string]any{"component": "Component", "Value #A": "CPU % avg", "Value #B": "CPU % peak",
					"Value #C": "RSS avg", "Value #D": "RSS peak", "Value #E": "Processes"}}},
		},
		FieldConfig: map[string]any{"defaults": map[string]any{}, "overrides": []any{
			override("CPU %.*", "percent"), override("RSS.*", "bytes")}},
		Options: map[string]any{"showHeader": true, "sortBy": []any{map[string]any{"displayName": "CPU % avg", "desc": true}}},
	}
}
