package bench

import (
	"math"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

func TestFitSlope(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"a line", []float64{0, 5, 10, 15}, []float64{100, 110, 120, 130}, 2},
		{"falling", []float64{0, 1, 2}, []float64{9, 6, 3}, -3},
		{"flat", []float64{0, 5, 10}, []float64{7, 7, 7}, 0},
		// Noise mirrored about the middle leaves the slope of y = 1 + x/2 alone.
		{"noise", []float64{0, 1, 2, 3, 4, 5}, []float64{1 + 1, 1.5 - 1, 2, 2.5, 3 - 1, 3.5 + 1}, 0.5},
		{"one x", []float64{3, 3}, []float64{1, 9}, 0},
	} {
		if got := fitSlope(c.x, c.y); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: slope %g, want %g", c.name, got, c.want)
		}
	}
	// Least squares, not end points: an outlier at the end pulls the slope
	// by its share only.
	x := []float64{0, 1, 2, 3, 4}
	if got := fitSlope(x, []float64{0, 0, 0, 0, 10}); math.Abs(got-2) > 1e-9 {
		t.Errorf("outlier: slope %g, want 2", got)
	}
}

// flatRun is 10 minutes of sending sampled every 5 s from 30 s before it:
// RSS climbs 50 MiB during the first minute (logins, buffers), then grows
// by perHour over the rest.
func flatRun(perHour float64) (summary.Summary, []procSample) {
	t0 := time.UnixMilli(1_800_000_000_000)
	var sum summary.Summary
	sum.Messages.FirstSendMs, sum.Messages.LastSendMs = t0.UnixMilli(), t0.Add(10*time.Minute).UnixMilli()
	sum.Messages.Sent, sum.Deliveries.Received = 240000, 500000
	var samples []procSample
	for at := -30 * time.Second; at <= 11*time.Minute; at += 5 * time.Second {
		rss := 100 << 20
		if at < time.Minute {
			rss = 50<<20 + int(max(at, 0)*(50<<20)/time.Minute)
		}
		rss += int(perHour * max(at-time.Minute, 0).Hours())
		samples = append(samples, procSample{at: t0.Add(at), rss: int64(rss), cpu: at.Seconds() / 2,
			fds: 2400 + int(max(at, 0)/time.Minute), threads: 9})
	}
	return sum, samples
}

func TestFlatFigures(t *testing.T) {
	sum, samples := flatRun(0)
	f, err := flatFigures("openim/mix", sum, samples, 10*time.Minute, 400)
	if err != nil {
		t.Fatal(err)
	}
	// Warm-up: a fifth of 10 minutes, 2 minutes; the fit is 2m..10m.
	if f.WarmupSeconds != 120 || f.FittedSamples != 97 || f.FittedSeconds != 480 {
		t.Errorf("warm-up %g s, %d samples over %g s; want 120 s, 97 over 480 s", f.WarmupSeconds, f.FittedSamples, f.FittedSeconds)
	}
	if f.RSSSlopeBytesPerHour != 0 || f.RSSMinBytes != 100<<20 || f.RSSMaxBytes != 100<<20 || f.RSSMeanBytes != 100<<20 {
		t.Errorf("flat run: slope %g B/h, RSS %d/%g/%d", f.RSSSlopeBytesPerHour, f.RSSMinBytes, f.RSSMeanBytes, f.RSSMaxBytes)
	}
	if f.FDsFirst != 2402 || f.FDsLast != 2410 || f.ThreadsFirst != 9 || f.CPUCores != 0.5 {
		t.Errorf("open files %d→%d, threads %d, CPU %g cores", f.FDsFirst, f.FDsLast, f.ThreadsFirst, f.CPUCores)
	}
	if len(f.Samples) != len(samples) || f.Samples[0].T != -30 {
		t.Errorf("%d samples from %g s; want all %d from -30 s", len(f.Samples), f.Samples[0].T, len(samples))
	}

	sum, samples = flatRun(12 << 20) // 12 MiB an hour
	if f, err = flatFigures("openim/mix", sum, samples, 10*time.Minute, 400); err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.RSSSlopeBytesPerHour-12<<20) > 100 { // RSS samples are whole bytes
		t.Errorf("slope %g B/h, want %d", f.RSSSlopeBytesPerHour, 12<<20)
	}
	// 12 MiB/h over a mean of 100 MiB + 12 MiB/h × 5 minutes (the middle of 2m..10m, 1m into the growth).
	if want := 12.0 / (100 + 12*5.0/60) * 100; math.Abs(f.RSSSlopePercentPerHour-want) > 1e-3 {
		t.Errorf("slope %g %%/h, want %g", f.RSSSlopePercentPerHour, want)
	}
}

func TestFlatFiguresNeedsSamples(t *testing.T) {
	sum, samples := flatRun(0)
	// 2 minutes of sending: a 60 s warm-up, then 60 s is 13 samples.
	sum.Messages.LastSendMs = sum.Messages.FirstSendMs + 2*60*1000
	f, err := flatFigures("openim/mix", sum, samples, 2*time.Minute, 400)
	if err != nil || f.WarmupSeconds != 60 || f.FittedSamples != 13 {
		t.Fatalf("2 minutes: %v, warm-up %g s, %d samples", err, f.WarmupSeconds, f.FittedSamples)
	}
	if _, err := flatFigures("openim/mix", sum, samples[:20], 2*time.Minute, 400); err == nil {
		t.Error("fitted a run sampled until 65 s into sending")
	}
	sum.Messages.FirstSendMs = 0
	if _, err := flatFigures("openim/mix", sum, samples, 2*time.Minute, 400); err == nil {
		t.Error("fitted a run that sent nothing")
	}
}

func TestFlatShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{10 * time.Minute: "10m", time.Hour: "1h", 90 * time.Minute: "1h30m",
		10 * time.Second: "10s", 3*time.Minute + 20*time.Second: "3m20s", time.Hour + 30*time.Second: "1h0m30s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// The goroutine counts the extension kept are fitted over the same window
// as the RSS: those before it (logins) and after it (drain) left out.
func TestGoroutinesAreFittedOverTheWindow(t *testing.T) {
	from := time.UnixMilli(1_700_000_000_000)
	g := summary.GeneratorSummary{GoroutinesStartMs: from.Add(-10 * time.Second).UnixMilli(), GoroutinesEverySeconds: 5,
		Goroutines: []int32{900, 950, 100, 100, 136, 136, 5000}} // t = -10, -5, 0, 5, 10, 15, 20 s
	var res flatResult
	goroutineFigures(&res, g, from, from.Add(15*time.Second))
	if res.GoroutinesFirst != 100 || res.GoroutinesLast != 136 || res.GoroutinesMax != 136 {
		t.Fatalf("first %d last %d max %d", res.GoroutinesFirst, res.GoroutinesLast, res.GoroutinesMax)
	}
	// Points (0,100) (5,100) (10,136) (15,136): 360/125 a second.
	if want := 360.0 / 125 * 3600; math.Abs(res.GoroutineSlopePerHour-want) > 0.01 {
		t.Fatalf("slope %v per hour", res.GoroutineSlopePerHour)
	}
}
