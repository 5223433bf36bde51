package bench

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// flatResult is the generator's memory, descriptors and threads over a long
// run at a fixed rate, fitted over its sending after a warm-up, and the
// run's own figures (latencies from the extension's histograms).
type flatResult struct {
	Scenario               string  `json:"scenario"`
	SendingSeconds         float64 `json:"sending_seconds"`     // IM_DURATION
	Rate                   float64 `json:"messages_per_second"` // IM_RATE, the open classes' total
	SampleEverySeconds     float64 `json:"sample_every_seconds"`
	WarmupSeconds          float64 `json:"warmup_seconds"` // of sending, left out of the fit
	FittedSamples          int     `json:"fitted_samples"`
	FittedSeconds          float64 `json:"fitted_seconds"`
	RSSSlopeBytesPerHour   float64 `json:"rss_slope_bytes_per_hour"`
	RSSSlopePercentPerHour float64 `json:"rss_slope_percent_of_mean_per_hour"`
	// What k6 kept before latencies moved into histograms: one 8-byte Trend
	// sample per e2e and per ack latency, at this run's rates; the slope
	// over it says how much of that growth is left.
	TrendBytesPerHour float64 `json:"per_sample_trends_bytes_per_hour"`
	SlopeOverTrends   float64 `json:"rss_slope_over_per_sample_trends"`
	RSSMinBytes       int64   `json:"rss_min_bytes"`
	RSSMeanBytes      float64 `json:"rss_mean_bytes"`
	RSSMaxBytes       int64   `json:"rss_max_bytes"`
	FDsFirst          int     `json:"open_files_first"`
	FDsLast           int     `json:"open_files_last"`
	ThreadsFirst      int     `json:"threads_first"`
	ThreadsLast       int     `json:"threads_last"`
	// The generator's goroutines over the same window, from the series
	// the run keeps in summary.json.
	GoroutinesFirst       int32                  `json:"goroutines_first"`
	GoroutinesLast        int32                  `json:"goroutines_last"`
	GoroutinesMax         int32                  `json:"goroutines_max"`
	GoroutineSlopePerHour float64                `json:"goroutine_slope_per_hour"`
	CPUCores              float64                `json:"generator_cpu_cores"` // CPU seconds per second over the fit
	MessagesSent          int64                  `json:"messages_sent"`
	MessagesPerSecond     float64                `json:"messages_per_second_sent"`
	SentByType            map[string]int64       `json:"messages_sent_by_type"`
	DeliveriesVerified    int64                  `json:"deliveries_verified"` // pushed and pulled
	Lost                  int64                  `json:"lost"`
	Integrity             float64                `json:"integrity"`
	E2E                   summary.LatencySummary `json:"latency_e2e_ms"`
	Ack                   summary.LatencySummary `json:"latency_ack_ms"`
	Samples               []flatSample           `json:"samples"` // all of them, setup and drain too
}

// flatSample is one sample of the generator's processes, T seconds from its first send.
type flatSample struct {
	T       float64 `json:"t"`
	RSS     int64   `json:"rss"`
	CPU     float64 `json:"cpu"`
	FDs     int     `json:"fds"`
	Threads int     `json:"threads"`
}

const (
	flatSampleEvery = 5 * time.Second
	flatMinWarmup   = 60 * time.Second
	flatMinSamples  = 10
)

// flatScenarios are the workloads flat can run at a fixed rate, with the
// knobs that make them so: openim/mix without its closed-loop pair, so that
// every message goes at the set rate; wukongim/stability (make soak) at a
// size this machine holds.
var flatScenarios = map[string]map[string]string{
	"openim/mix":         {"IM_SCALE": "1", "IM_MIX_CLOSED": "0"},
	"wukongim/stability": {"IM_SCALE": "0.05"},
}

// IsFlatScenario says whether the flat run can run scenario.
func IsFlatScenario(scenario string) bool {
	_, ok := flatScenarios[scenario]
	return ok
}

// flat runs a scenario sending for d at rate and samples the generator's
// processes until the run exits.
func (b *bench) flat(scenario string, d time.Duration, rate float64) (*flatResult, error) {
	fmt.Printf("imbench bench: flat: %s sending for %s at %g msg/s, the generator sampled every %s\n",
		scenario, shortDuration(d), rate, flatSampleEvery)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	env := map[string]string{"IM_DURATION": d.String(), "IM_RATE": strconv.FormatFloat(rate, 'f', -1, 64)}
	maps.Copy(env, flatScenarios[scenario])
	run, err := b.runScenario(bt, scenario, "", 1, env)
	if err != nil {
		return nil, err
	}
	var samples []procSample
	var pids []int
	tick := time.NewTicker(flatSampleEvery)
	defer tick.Stop()
	for finished := false; !finished; {
		select {
		case err = <-run.done:
			finished = true
		case <-tick.C:
			// The same processes throughout: one whose CPU left the sum
			// between samples would bend the fit.
			if len(pids) == 0 {
				pids = run.pids()
			}
			if m := sampleEach(pids); len(m) == len(pids) && len(m) > 0 {
				samples = append(samples, sumSamples(m, nil, time.Now()))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	sum, err := summary.Load(filepath.Join(b.resultsDir, run.id, "summary.json"))
	if err != nil {
		return nil, err
	}
	return flatFigures(scenario, sum, samples, d, rate)
}

// flatFigures fits the samples taken while the run sent, after a warm-up of
// a fifth of the sending (at least flatMinWarmup): setup, logins and the
// late users' pulls after sending are not the steady state.
func flatFigures(scenario string, sum summary.Summary, samples []procSample, d time.Duration, rate float64) (*flatResult, error) {
	if sum.Messages.FirstSendMs == 0 {
		return nil, errors.New("the run sent no message")
	}
	first, last := time.UnixMilli(sum.Messages.FirstSendMs), time.UnixMilli(sum.Messages.LastSendMs)
	warm := max(last.Sub(first)/5, flatMinWarmup)
	res := &flatResult{Scenario: scenario, SendingSeconds: d.Seconds(), Rate: rate,
		SampleEverySeconds: flatSampleEvery.Seconds(), WarmupSeconds: round2(warm.Seconds()),
		MessagesSent: sum.Messages.Sent, MessagesPerSecond: sum.Messages.AvgPerSecond, SentByType: sum.Messages.ByType,
		DeliveriesVerified: sum.Deliveries.Received, Lost: sum.Deliveries.Lost, Integrity: sum.Integrity,
		E2E: sum.Latency.E2E, Ack: sum.Latency.Ack}
	var fit []procSample
	for _, s := range samples {
		res.Samples = append(res.Samples, flatSample{T: round2(s.at.Sub(first).Seconds()), RSS: s.rss, CPU: s.cpu,
			FDs: s.fds, Threads: s.threads})
		if !s.at.Before(first.Add(warm)) && !s.at.After(last) {
			fit = append(fit, s)
		}
	}
	if len(fit) < flatMinSamples {
		return res, fmt.Errorf("%d samples after a %s warm-up, not the %d a fit needs: send for longer",
			len(fit), warm, flatMinSamples)
	}
	x, y := make([]float64, len(fit)), make([]float64, len(fit))
	res.RSSMinBytes = fit[0].rss
	for i, s := range fit {
		x[i], y[i] = s.at.Sub(fit[0].at).Seconds(), float64(s.rss)
		res.RSSMinBytes, res.RSSMaxBytes = min(res.RSSMinBytes, s.rss), max(res.RSSMaxBytes, s.rss)
		res.RSSMeanBytes += y[i] / float64(len(fit))
	}
	slope := fitSlope(x, y) * 3600
	a, z := fit[0], fit[len(fit)-1]
	res.FittedSamples, res.FittedSeconds = len(fit), round2(z.at.Sub(a.at).Seconds())
	res.RSSSlopeBytesPerHour = math.Round(slope)
	res.RSSSlopePercentPerHour = math.Round(slope/res.RSSMeanBytes*100*1e4) / 1e4
	res.RSSMeanBytes = math.Round(res.RSSMeanBytes)
	if sending := last.Sub(first).Hours(); sending > 0 {
		res.TrendBytesPerHour = math.Round(8 * float64(sum.Latency.E2E.Count+sum.Latency.Ack.Count) / sending)
		res.SlopeOverTrends = math.Round(slope/res.TrendBytesPerHour*1e4) / 1e4
	}
	res.FDsFirst, res.FDsLast, res.ThreadsFirst, res.ThreadsLast = a.fds, z.fds, a.threads, z.threads
	goroutineFigures(res, sum.Generator, a.at, z.at)
	res.CPUCores = round2((z.cpu - a.cpu) / z.at.Sub(a.at).Seconds())
	return res, nil
}

// goroutineFigures fits the goroutine counts taken in [from, to].
func goroutineFigures(res *flatResult, g summary.GeneratorSummary, from, to time.Time) {
	var x, y []float64
	for i, n := range g.Goroutines {
		at := time.UnixMilli(g.GoroutinesStartMs).Add(time.Duration(i*g.GoroutinesEverySeconds) * time.Second)
		if at.Before(from) || at.After(to) {
			continue
		}
		if len(x) == 0 {
			res.GoroutinesFirst = n
		}
		res.GoroutinesLast, res.GoroutinesMax = n, max(res.GoroutinesMax, n)
		x, y = append(x, at.Sub(from).Seconds()), append(y, float64(n))
	}
	if len(x) > 1 {
		res.GoroutineSlopePerHour = math.Round(fitSlope(x, y)*3600*100) / 100
	}
}

// fitSlope is the least-squares slope of y over x; 0 when x does not vary.
func fitSlope(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/float64(len(x)), my/float64(len(x))
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}
