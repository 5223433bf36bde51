package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/limit"
)

// ServerInput is what make compare-servers ran on one server: the fixed
// load's run and the limit search, each by its folder, with what the
// command knew of them.
type ServerInput struct {
	Name, Target, Protocol string
	RunDir                 string // results/<run id>
	RunExit                int
	Verdict                string // the run's verdict line
	LimitDir               string // results/<search id>; "" where no search ran
	LimitExit              int
	Notes                  []string // the servers file's own, on what differs
	Before                 string   // the command run before its turn
	Warmup                 string   // how long the workload ran before the measured run ("": it did not)
	Version                string   // the server's version, from the servers file
	Usage                  []limit.Usage
	UsageSeconds           float64 // the sending window the usage covers
}

// Comparison is comparison.json: one workload on several servers, side by
// side. Every figure is read from each server's summary.json, its
// target_usage.json and its limit.json, which it names.
type Comparison struct {
	ID        string         `json:"comparison_id"`
	Scenario  string         `json:"scenario"`
	Load      string         `json:"fixed_load"` // what the fixed-load runs were asked
	Objective string         `json:"objective"`  // the searches' objective
	Latency   string         `json:"limit_chart_latency"`
	Servers   []ServerColumn `json:"servers"`
	Fairness  []string       `json:"fairness"`
}

// ServerColumn is one server's column.
type ServerColumn struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	Protocol string `json:"protocol"`
	RunID    string `json:"run_id"`
	LimitID  string `json:"limit_id,omitempty"`
	// ServerVersion is the servers file's; Versions the generator's (imbench, go).
	ServerVersion string            `json:"server_version,omitempty"`
	Versions      map[string]string `json:"versions"`
	Cores         int               `json:"server_cores"`
	// CPUs is the cores the server's processes were allowed (taskset), 0
	// where they could use every core or were not measured here.
	CPUs int `json:"server_cpus_allowed,omitempty"`

	Exit            int      `json:"run_exit"`
	Verdict         string   `json:"verdict"`
	Integrity       *float64 `json:"integrity"`
	Expected        int64    `json:"expected"`
	Received        int64    `json:"received"`
	Lost            int64    `json:"lost"`
	LostNeverStored int64    `json:"lost_never_stored"`
	Late            int64    `json:"late"`
	Unchecked       int64    `json:"unchecked"`
	Unanswered      int64    `json:"unanswered"`
	Duplicates      int64    `json:"duplicates"`
	OutOfOrder      int64    `json:"out_of_order"`
	Sent            int64    `json:"sent"`
	SentPerSecond   float64  `json:"sent_per_second"`

	E2E   summary.LatencySummary `json:"e2e_ms"`
	Ack   summary.LatencySummary `json:"ack_ms"`
	Login summary.LatencySummary `json:"time_to_online_ms"`
	// LoginRequests is the requests a login made, on average: its cost.
	LoginRequests float64 `json:"login_requests"`

	// CPU of the server's parts over the fixed load's sending, in seconds
	// of one core per 1,000 verified deliveries and in milliseconds of
	// one core per message sent, by part and in total ("total").
	CPUPerKDeliveries map[string]float64 `json:"cpu_seconds_per_1000_deliveries,omitempty"`
	CPUPerMessage     map[string]float64 `json:"cpu_ms_per_message_sent,omitempty"`
	// MemoryPerUser is the parts' resident memory at its peak over the
	// users online at the peak, in bytes (the server's base included).
	MemoryPerUser float64 `json:"memory_bytes_per_online_user,omitempty"`
	OnlinePeak    int64   `json:"online_peak"`

	Limit         float64 `json:"limit,omitempty"`
	Knee          float64 `json:"knee,omitempty"`
	Confirmed     bool    `json:"limit_confirmed,omitempty"`
	KneeConfirmed bool    `json:"knee_confirmed,omitempty"`
	HighestHeld   float64 `json:"highest_held,omitempty"` // an undetermined search's most load held
	// KneeEvidence is what decided a knee broken while other processes ran.
	KneeEvidence string       `json:"knee_evidence,omitempty"`
	LimitLine    string       `json:"limit_result,omitempty"`
	GaveOut      string       `json:"gave_out_first,omitempty"`
	Generator    bool         `json:"generator_limited,omitempty"`
	Undetermined bool         `json:"undetermined,omitempty"`
	Steps        []LimitPoint `json:"limit_steps,omitempty"`

	Cannot []string `json:"cannot_carry,omitempty"`
	Left   []string `json:"left_on_server,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	// Before is the command run before the server's turn, BeforeStep the
	// one its search ran before each step (its limit.json's).
	Before     string `json:"before,omitempty"`
	BeforeStep string `json:"before_step,omitempty"`
	// Warmup: the workload ran this long before the measured run; Cold
	// says why a server that warms up was measured without it.
	Warmup string `json:"warmup,omitempty"`
	Cold   string `json:"cold,omitempty"`
}

// LimitPoint is one step of a search, for the chart of latency against load.
type LimitPoint struct {
	Sent    float64 `json:"sent_per_second"`
	Latency float64 `json:"latency_ms"`
	Held    bool    `json:"held"`
	// FellShort: met the objective's figures, but did not put out its load.
	FellShort bool `json:"fell_short,omitempty"`
}

// CompareServers reads each server's results and builds the comparison.
func CompareServers(id, scenario, load, objective string, in []ServerInput) (Comparison, error) {
	c := Comparison{ID: id, Scenario: scenario, Load: load, Objective: objective, Latency: limit.ObjectiveLatency(objective)}
	for _, si := range in {
		col, err := serverColumn(si, c.Latency)
		if err != nil {
			return c, fmt.Errorf("%s: %w", si.Name, err)
		}
		c.Servers = append(c.Servers, col)
	}
	c.Fairness = fairness(c.Servers)
	return c, nil
}

func serverColumn(si ServerInput, latency string) (ServerColumn, error) {
	s, err := summary.Load(filepath.Join(si.RunDir, "summary.json"))
	if err != nil {
		return ServerColumn{}, fmt.Errorf("its run left no summary: %w", err)
	}
	d, m := s.Deliveries, s.Messages
	col := ServerColumn{Name: si.Name, Target: si.Target, Protocol: si.Protocol, RunID: s.RunID, Versions: s.Versions, Cores: s.ServerCores,
		Exit: si.RunExit, Verdict: si.Verdict, Expected: d.Expected, Received: d.Received, Lost: d.Lost,
		LostNeverStored: d.LostNeverStored, Late: d.Late, Unchecked: d.Unchecked, Unanswered: m.Unanswered, Duplicates: d.Duplicates,
		OutOfOrder: d.OutOfOrder, Sent: m.Sent, SentPerSecond: m.AvgPerSecond, E2E: s.Latency.E2E, Ack: s.Latency.Ack,
		OnlinePeak: s.Users.OnlinePeak, Notes: si.Notes, Before: si.Before, ServerVersion: si.Version, Warmup: si.Warmup}
	if col.Protocol == "" {
		col.Protocol = s.System // the protocol the run spoke: its target's own
	}
	if w := warmsUp[col.Protocol]; w != "" && col.Warmup == "" && si.Target != "reference" {
		col.Cold = w
	}
	if d.Expected > 0 {
		v := s.Integrity
		col.Integrity = &v
	}
	if s.Logins != nil {
		col.Login, col.LoginRequests = s.Logins.TimeToOnline, s.Logins.RequestsPerLogin
	}
	col.cpuAndMemory(si)
	col.Cannot = cannotCarry(s.Warnings)
	runs := []string{si.RunDir}
	if si.LimitDir != "" {
		r, err := limit.Load(si.LimitDir)
		if err != nil {
			return col, fmt.Errorf("its limit search left no limit.json: %w", err)
		}
		col.LimitID, col.Limit, col.Knee, col.LimitLine = r.SearchID, r.Limit, r.Knee, limit.ResultLine(r)
		col.Generator, col.Undetermined, col.BeforeStep = r.GeneratorLimited, r.Undetermined, r.BeforeStep
		col.Confirmed, col.KneeConfirmed, col.HighestHeld = r.Confirmed, r.KneeConfirmed, r.HighestHeld
		if k := r.Step(r.KneeStep); k != nil {
			col.KneeEvidence = k.Evidence
		}
		col.GaveOut = r.Saturated.Component
		if r.Saturated.Rule == limit.RuleServerSharedCores {
			col.GaveOut = "the cores its parts share (" + r.Saturated.Component + " the largest)"
		}
		if r.Saturated.Generator {
			col.GaveOut = "the generator (" + r.Saturated.Component + ")"
		}
		for _, st := range r.Steps {
			col.Steps = append(col.Steps, LimitPoint{Sent: st.Achieved, Latency: st.Latency(latency), Held: st.Held, FellShort: st.FellShort})
			runs = append(runs, filepath.Join(filepath.Dir(si.LimitDir), st.RunID))
		}
	}
	col.Left = leftOnServer(runs, si.Target != "reference")
	return col, nil
}

// cpuAndMemory divides the parts' CPU over the sending window by what the
// run verified and sent, and their memory by the users online.
func (col *ServerColumn) cpuAndMemory(si ServerInput) {
	if si.UsageSeconds <= 0 {
		return
	}
	col.CPUPerKDeliveries, col.CPUPerMessage = map[string]float64{}, map[string]float64{}
	var rss, total float64
	for _, u := range si.Usage {
		if u.Role != "target" {
			continue
		}
		coreSeconds := u.CPUAvg / 100 * si.UsageSeconds
		total += coreSeconds
		if col.Received > 0 {
			col.CPUPerKDeliveries[u.Component] = coreSeconds / float64(col.Received) * 1000
		}
		if col.Sent > 0 {
			col.CPUPerMessage[u.Component] = coreSeconds / float64(col.Sent) * 1000
		}
		rss += u.RSSPeak
		if u.CPUs > 0 && (col.CPUs == 0 || u.CPUs < col.CPUs) {
			col.CPUs = u.CPUs
		}
	}
	if col.Received > 0 {
		col.CPUPerKDeliveries["total"] = total / float64(col.Received) * 1000
	}
	if col.Sent > 0 {
		col.CPUPerMessage["total"] = total / float64(col.Sent) * 1000
	}
	if col.OnlinePeak > 0 && rss > 0 {
		col.MemoryPerUser = rss / float64(col.OnlinePeak)
	}
}

// cannotCarry are the run's warnings about what its protocol left out.
func cannotCarry(warnings []string) []string {
	var out []string
	for _, w := range warnings {
		if strings.Contains(w, "cannot carry") || strings.Contains(w, "left out") {
			out = append(out, w)
		}
	}
	return out
}

// protocolNotes are what a protocol's server does differently, where it
// touches a figure: from the wire references (../shared/protocols).
var protocolNotes = map[string]string{
	"openim":   "OpenIM answers a send once its msg service has put it on Kafka (no seq in the answer); Redis and MongoDB store it after, and pushes go through Kafka to openim-push. No payload encryption in the protocol.",
	"wukongim": "WuKongIM answers a send with a SENDACK carrying the message's seq; payloads are encrypted per connection (AES, a key agreed at CONNECT) unless the server runs with disableEncryption.",
	"wildfire": "Wildfire answers a send (MS) with the message's id; it stores messages in its embedded H2 database by default (embed.db 1), caches them in memory, and limits each client's requests (client.request_rate_limit, 100 per 5 s by default); payloads are AES-encrypted.",
}

// warmsUp are the servers that carry more once warm, and what the
// figures of one measured cold are.
var warmsUp = map[string]string{
	"wildfire": "measured cold: a JVM compiles its hot paths in its first minutes, and cold costs about twice its warm CPU (runbooks/wildfire.md); give it warmup: in the servers file",
}

// fairness names every difference that touches a figure.
func fairness(cols []ServerColumn) []string {
	var out []string
	protos := map[string]bool{}
	for _, c := range cols {
		if c.Target == "reference" {
			out = append(out, fmt.Sprintf("%s is imbench's reference target speaking %s: one process, everything in memory, nothing persisted.", c.Name, c.Protocol))
		} else if n := protocolNotes[c.Protocol]; n != "" && !protos[c.Protocol] {
			out = append(out, n)
		}
		protos[c.Protocol] = true
		cores := fmt.Sprintf("%s ran on a machine of %d cores", c.Name, c.Cores)
		if c.CPUs > 0 {
			cores += fmt.Sprintf(", its processes allowed %d of them", c.CPUs)
		}
		out = append(out, cores+".")
		if c.Before != "" {
			out = append(out, fmt.Sprintf("%s: before its turn, `%s`.", c.Name, c.Before))
		}
		if c.BeforeStep != "" {
			out = append(out, fmt.Sprintf("%s: before each step of its search, `%s`.", c.Name, c.BeforeStep))
		}
		if c.Warmup != "" {
			out = append(out, fmt.Sprintf("%s: warmed up by a run of the workload for %s before the measured run.", c.Name, c.Warmup))
		}
		if c.Cold != "" {
			out = append(out, fmt.Sprintf("%s: %s.", c.Name, c.Cold))
		}
		for _, n := range c.Notes {
			out = append(out, c.Name+": "+n)
		}
	}
	return out
}

// ComparisonFiles writes comparison.json, .md and .html into dir.
func ComparisonFiles(dir string, c Comparison) error {
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"comparison.json": append(raw, '\n'), "comparison.md": []byte(ComparisonMarkdown(c)),
		"comparison.html": []byte(ComparisonHTML(c))} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// components are the parts named in any column's CPU, "total" last.
func components(c Comparison) []string {
	set := map[string]bool{}
	for _, s := range c.Servers {
		for k := range s.CPUPerKDeliveries {
			if k != "total" {
				set[k] = true
			}
		}
	}
	out := slices.Sorted(maps.Keys(set))
	return append(out, "total")
}
