package runner

import (
	"maps"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/imbench/imbench/load/procgroup"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/promrw"
	"github.com/imbench/imbench/load/verify"
)

// Metric names, as Prometheus stores them. Counters are cumulative over the
// run; latencies are native histograms in seconds. Every series carries
// run_id, target, system and scenario (and instance in a split run);
// message series conv_type (single|group|room), deliveries via (push|pull),
// logins phase (immediate|late).
const (
	mOnline      = "imbench_online_users"
	mDown        = "imbench_users_down"
	mVUs         = "imbench_vus"
	mGoroutines  = "imbench_goroutines"
	mProcCPU     = "imbench_process_cpu_seconds_total"
	mProcRSS     = "imbench_process_resident_memory_bytes"
	mTargetCPU   = "imbench_target_process_cpu_seconds_total"
	mTargetMem   = "imbench_target_process_memory_bytes"
	mTargetProcs = "imbench_target_process_tree_size" // the listening process and its descendants
	mSent        = "imbench_messages_sent_total"
	mAcked       = "imbench_messages_acked_total"
	mSendFailed  = "imbench_send_failures_total"
	mUnanswered  = "imbench_sends_unanswered_total"
	mExpected    = "imbench_deliveries_expected_total"
	mDeliveries  = "imbench_deliveries_total"
	mDuplicates  = "imbench_duplicates_total"
	mOutOfOrder  = "imbench_out_of_order_total"
	mLost        = "imbench_lost_total"
	mLate        = "imbench_late_total"
	mUnchecked   = "imbench_unchecked_total"
	mRoomMissed  = "imbench_room_missed_total"
	mCorrupted   = "imbench_corrupted_total"
	mConnectErrs = "imbench_connect_errors_total"
	mDisconnects = "imbench_disconnects_total"
	mReconnects  = "imbench_reconnects_total"
	mLogins      = "imbench_logins_total"
	mPulls       = "imbench_pull_requests_total"
	mPushedAfter = "imbench_pushed_after_pull_total"
	mLoginFailed = "imbench_login_failures_total"
	mLoginRetry  = "imbench_login_retries_total"
	mAfterRetry  = "imbench_logins_after_retry_total"
	mNeverOnline = "imbench_users_never_online"
	mNotAttempt  = "imbench_deliveries_not_attempted_total"
	mE2E         = "imbench_e2e_latency_seconds"
	mAck         = "imbench_ack_latency_seconds"
)

// MetricNames lists every series the runner writes.
var MetricNames = []string{mOnline, mDown, mVUs, mGoroutines, mProcCPU, mProcRSS, mTargetCPU, mTargetMem, mTargetProcs, mSent, mAcked, mSendFailed, mUnanswered, mExpected, mDeliveries,
	mDuplicates, mOutOfOrder, mLost, mLate, mUnchecked, mRoomMissed, mCorrupted, mConnectErrs, mDisconnects, mReconnects, mLogins, mPulls, mPushedAfter, mLoginFailed, mLoginRetry, mAfterRetry, mNeverOnline, mNotAttempt,
	mE2E, mAck}

// goroutineEvery is how often the summary samples the goroutine count: a
// long run's generator must hold it flat (make soak fits it).
const goroutineEvery = 5 * time.Second

// pusher writes the run's series every interval, and a last time once the
// run reconciled; it samples the goroutines for the summary whether or not
// Prometheus listens.
type pusher struct {
	run   *Run
	rw    *promrw.Writer
	every time.Duration
	base  map[string]string
	vus   int

	stop chan struct{}
	done chan struct{}
	once sync.Once

	target *targetProcs        // the processes serving the run's ports here, if any
	trees  procgroup.TreeMeter // their process trees' CPU, what they forked and reaped included

	mu         sync.Mutex
	lost       *verify.Reconciliation
	goroutines []int32
	gStart     time.Time
}

func startPusher(run *Run, rw *promrw.Writer, base map[string]string, vus int, every time.Duration, target *targetProcs) *pusher {
	p := &pusher{run: run, rw: rw, every: every, base: base, vus: vus, target: target, stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *pusher) loop() {
	defer close(p.done)
	sample := time.NewTicker(goroutineEvery)
	defer sample.Stop()
	push := time.NewTicker(p.every)
	defer push.Stop()
	p.sampleGoroutines(time.Now())
	for {
		select {
		case now := <-sample.C:
			p.sampleGoroutines(now)
		case <-push.C:
			p.push()
		case <-p.stop:
			p.push()
			p.rw.Finish()
			return
		}
	}
}

// finish writes the reconciliation's lost deliveries with a last push.
func (p *pusher) finish(rec verify.Reconciliation) {
	p.mu.Lock()
	p.lost = &rec
	p.mu.Unlock()
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

func (p *pusher) sampleGoroutines(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gStart.IsZero() {
		p.gStart = now
	}
	p.goroutines = append(p.goroutines, int32(runtime.NumGoroutine()))
}

// goroutineSeries is when the first sample was taken and every count since.
func (p *pusher) goroutineSeries() (time.Time, []int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gStart, append([]int32(nil), p.goroutines...)
}

func (p *pusher) push() {
	if p.rw == nil {
		return
	}
	p.mu.Lock()
	lost := p.lost
	p.mu.Unlock()
	p.rw.Write(p.series(time.Now(), lost))
}

// series is every series' value now.
func (p *pusher) series(now time.Time, lost *verify.Reconciliation) []promrw.TimeSeries {
	ts := p.rw.Stamp(now)
	sh := p.run.Shared
	t := sh.Totals()
	var out []promrw.TimeSeries
	add := func(name string, v float64, kv ...string) {
		labels := maps.Clone(p.base)
		for i := 0; i+1 < len(kv); i += 2 {
			labels[kv[i]] = kv[i+1]
		}
		out = append(out, promrw.TimeSeries{Labels: promrw.Labels(labels, name), Samples: []promrw.Sample{{Value: v, Timestamp: ts}}})
	}
	add(mOnline, float64(sh.Online()))
	add(mDown, float64(sh.Down()))
	add(mVUs, float64(p.vus))
	add(mGoroutines, float64(runtime.NumGoroutine()))
	// This process's own CPU and memory, labelled with the run: the report's
	// generator row is this run's processes, not every imbench on the host.
	if cpu, err := processCPUSeconds(); err == nil {
		add(mProcCPU, cpu)
	}
	if rss, err := processRSSBytes(); err == nil {
		add(mProcRSS, rss)
	}
	// The target's processes serving this run's ports (by their listening
	// sockets, not their name), each with its process tree: CPU, the
	// children it forked and reaped between two pushes included, and
	// memory by proportional share.
	owners := p.target.current(now)
	roots := make([]int, len(owners))
	for i, o := range owners {
		roots[i] = o.PID
	}
	var usage map[int]procgroup.TreeUsage
	if len(roots) > 0 {
		usage = p.trees.Usage(roots)
	}
	for _, o := range owners {
		if u, ok := usage[o.PID]; ok {
			pid := strconv.Itoa(o.PID)
			add(mTargetCPU, u.CPUSeconds, "component", o.Component, "pid", pid)
			add(mTargetMem, u.MemBytes, "component", o.Component, "pid", pid)
			add(mTargetProcs, float64(u.Processes), "component", o.Component, "pid", pid)
		}
	}
	// Every counter is sent on every push, zeros included: a counter that
	// stays 0 must still be a continuous 0 series (a clean run shows 0
	// duplicates, and rate() over it is 0, not "no data").
	var e2e, ack [verify.Kinds]latency.Native
	for _, s := range sh.Sessions() {
		for k := 0; k < verify.Kinds; k++ {
			s.Tally.E2E[k].MergeNativeInto(&e2e[k])
			s.Tally.Ack[k].MergeNativeInto(&ack[k])
		}
	}
	for k := 0; k < verify.Kinds; k++ {
		kind := verify.KindName(k)
		add(mSent, float64(t.Sent[k]), "conv_type", kind)
		add(mAcked, float64(t.Acked[k]), "conv_type", kind)
		add(mSendFailed, float64(t.SendFailed[k]), "conv_type", kind)
		add(mUnanswered, float64(t.Unanswered[k]), "conv_type", kind)
		add(mExpected, float64(t.Expected[k]), "conv_type", kind)
		add(mDeliveries, float64(t.Pushed[k]), "conv_type", kind, "via", "push")
		add(mDeliveries, float64(t.Pulled[k]), "conv_type", kind, "via", "pull")
		add(mDuplicates, float64(t.Duplicates[k]), "conv_type", kind)
		add(mOutOfOrder, float64(t.OutOfOrder[k]), "conv_type", kind)
		add(mPushedAfter, float64(t.PushedAfterPull[k]), "conv_type", kind)
		for name, n := range map[string]*latency.Native{mE2E: &e2e[k], mAck: &ack[k]} {
			if n.Count() == 0 {
				continue
			}
			labels := maps.Clone(p.base)
			labels["conv_type"] = kind
			out = append(out, promrw.TimeSeries{Labels: promrw.Labels(labels, name), Histograms: []promrw.Histogram{promrw.NativeHistogram(n, ts)}})
		}
	}
	add(mCorrupted, float64(t.Corrupt))
	add(mConnectErrs, float64(t.ConnectErrors))
	add(mDisconnects, float64(t.Disconnects))
	add(mReconnects, float64(t.Reconnects))
	add(mLogins, float64(t.LoginsImmediate), "phase", "immediate")
	add(mLogins, float64(t.LoginsLate), "phase", "late")
	add(mPulls, float64(t.PullRequests))
	for c := range verify.LoginCauses {
		name := verify.LoginCauseName(c)
		add(mLoginFailed, float64(t.LoginFailed[c]), "cause", name)
		add(mLoginRetry, float64(t.LoginRetried[c]), "cause", name)
	}
	add(mAfterRetry, float64(t.LoginsRetried))
	if lost != nil {
		for _, kind := range p.run.Plan.Kinds() {
			k := verify.KindIndex(kind)
			name := mLost
			if k == verify.RoomIndex {
				name = mRoomMissed // a chatroom's misses are a rate, not a loss
			}
			add(name, float64(lost.Lost[k]), "conv_type", verify.KindName(k))
			if k != verify.RoomIndex {
				add(mLate, float64(lost.Late[k]), "conv_type", verify.KindName(k))
				add(mUnchecked, float64(lost.Unchecked[k]), "conv_type", verify.KindName(k))
			}
			add(mNotAttempt, float64(lost.NotAttempted[k]), "conv_type", verify.KindName(k))
		}
		add(mNeverOnline, float64(lost.NeverOnline))
	}
	return out
}
