package dashboards

const generatorSel = `component="imbench"`

// generator is the load generator's own health: a saturated or
// file-descriptor-starved generator invalidates a benchmark.
func generator() Dashboard {
	var l layout
	l.row("CPU and memory")
	l.add(timeseries("Generator CPU", "percent", "The generator's processes (imbench run), in % of one core; and their share of the machine (alert above 80 %).",
		series(`100 * imbench:component_cpu_cores{`+generatorSel+`}`, "% of one core"),
		series(`100 * imbench:generator_cpu_ratio`, "% of the machine")), 12, 8)
	l.add(timeseries("Generator resident memory", "bytes", "RSS of the generator's processes.",
		series(`imbench:component_memory_rss_bytes{`+generatorSel+`}`, "rss")), 12, 8)
	l.add(timeseries("Memory per online user", "bytes", "Generator RSS over the users it holds online.",
		series(`sum(imbench:component_memory_rss_bytes{`+generatorSel+`}) / sum(imbench:online_users{`+run+`})`, "bytes per user")), 12, 8)
	l.add(timeseries("Context switches", "short", "Per second, by kind.",
		series(`sum by (ctxswitchtype) (rate(namedprocess_namegroup_context_switches_total{groupname="imbench"}[30s]))`, "{{ctxswitchtype}}")), 12, 8)

	l.row("Limits")
	l.add(timeseries("File descriptors and threads", "short", "Each connection holds a descriptor; the hard limit here is 20,000 per process.",
		series(`sum(namedprocess_namegroup_open_filedesc{groupname="imbench"})`, "open descriptors"),
		series(`sum(namedprocess_namegroup_num_threads{groupname="imbench"})`, "threads")), 12, 8)
	l.add(timeseries("Closest to the descriptor limit", "percentunit", "The generator process nearest its open-files limit.",
		series(`max(namedprocess_namegroup_worst_fd_ratio{groupname="imbench"})`, "worst")), 12, 8)
	l.add(timeseries("Goroutines", "short", "Of each generator process: flat over a long run (make soak fits its slope).",
		series(`imbench_goroutines{`+run+`}`, "{{instance}}")), 12, 8)

	l.row("Work")
	l.add(timeseries("Workers", "short", "Workers over all imbench processes of the run (VUS, -vus; k6 called them VUs); each holds a share of the users.",
		series(`sum(imbench_vus{`+run+`})`, "vus")), 8, 7)
	l.add(timeseries("Pulls and reconnects", "short", "Per second: pull requests (gap fills, syncs) and reconnects.",
		series(`sum(rate(imbench_pull_requests_total{`+run+`}[1m]))`, "pull requests"),
		series(`sum(rate(imbench_reconnects_total{`+run+`}[1m]))`, "reconnects")), 8, 7)
	l.add(timeseries("Messages sent per second", "short", "Against the plan's rate: a generator that cannot keep up sends less.",
		series(`imbench:messages_sent:rate1m{`+run+`}`, "sent")), 8, 7)

	return dashboard("imbench-generator", "IM benchmark: generator", "The load generator's health during a run.",
		nil, l.panels)
}
