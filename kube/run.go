package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/segment"
)

// Run is one distributed run in progress.
type Run struct {
	Spec
	Kubectl
	Dir    string // results/<run id>: setup.json, the parts, setup.log, seg<i>.log
	Secret string
	Out    io.Writer // one line per event
	// Poll is how often the pods are looked at (2 s when zero).
	Poll time.Duration
	// Grace is how long a pod may stay unscheduled past its start (60 s
	// when zero): a cluster that adds nodes on demand needs a while.
	Grace time.Duration

	follow sync.WaitGroup
}

// ErrRefused is a setup pod's own refusal before any load (its exit 2).
var ErrRefused = errors.New("refused before load")

// ErrCannotRun is a pod the cluster cannot schedule or start: the run
// stops at once.
var ErrCannotRun = errors.New("the cluster cannot run the pods")

// Segment is how one segment's pod ended.
type Segment struct {
	Index int
	Pod   string
	Ended string // "" when it completed and its part was read; else what happened, in words
}

// waiting are the reasons a container waits that will not pass by
// themselves.
var waiting = []string{"ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName",
	"CreateContainerConfigError", "CreateContainerError", "RunContainerError"}

// Setup creates the secret and the setup Job, waits for it and writes the
// setup record it printed into Dir, also when it failed after registering
// some users (their clean-up needs it).
func (r *Run) Setup(ctx context.Context) error {
	if err := r.Create(ctx, r.Spec.Secret(r.Secret)); err != nil {
		return err
	}
	job := r.SetupJob()
	if err := r.Create(ctx, job); err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "imbench: kubernetes: job/%s sets the target up\n", job.Name)
	pods, done, err := r.wait(ctx, job.Name, "setup", time.Now().Add(r.grace()), false)
	if len(pods) == 0 || !done {
		if err == nil {
			err = fmt.Errorf("job/%s ended with no pod", job.Name)
		}
		return err
	}
	pod := pods[len(pods)-1]
	log := filepath.Join(r.Dir, "setup.log")
	if lerr := r.saveLogs(ctx, pod.Name, log); lerr != nil {
		return lerr
	}
	xerr := r.extract(log, "setup pod", runnerSetupFile)
	if code := exitCode(pod); code != 0 {
		last := lastLines(log, 3)
		if code == 2 {
			return fmt.Errorf("%w: the setup pod said: %s", ErrRefused, last)
		}
		return fmt.Errorf("the setup pod %s exited %d: %s (its log: %s)", pod.Name, code, last, log)
	}
	if err != nil {
		return err
	}
	return xerr
}

// runnerSetupFile is load/runner's setup record.
const runnerSetupFile = "setup.json"

// RunSegments creates the Indexed Job, follows its pods until the Job ends,
// keeps each pod's log as seg<i>.log and the partial summary its pod
// printed, and says how each segment ended. A segment that did not end
// well has no part here: its users are counted as missing, never twice.
func (r *Run) RunSegments(ctx context.Context) ([]Segment, error) {
	job := r.SegmentsJob()
	if err := r.Create(ctx, job); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Out, "imbench: kubernetes: job/%s, %d pods, starting together at %s\n", job.Name, r.Spec.Segments,
		time.UnixMilli(r.StartAtMs).Format("15:04:05"))
	followCtx, stopFollowing := context.WithCancel(ctx)
	pods, done, err := r.wait(followCtx, job.Name, "segment", time.UnixMilli(r.StartAtMs).Add(r.grace()), true)
	if !done {
		stopFollowing() // stopped before the Job's end: what the pods print now is not wanted
	}
	r.follow.Wait()
	stopFollowing()
	ended := make([]Segment, r.Spec.Segments)
	for i := range ended {
		ended[i] = Segment{Index: i, Ended: "its pod never ran"}
	}
	for _, p := range pods {
		i, ok := index(p)
		if !ok || i >= len(ended) {
			continue
		}
		// The log in full once the pod ended; the followed copy where the
		// pod is gone.
		if done && r.saveLogs(ctx, p.Name, r.segLog(i)) != nil {
			fmt.Fprintf(r.Out, "imbench: kubernetes: segment %d: its log as followed (the pod is gone)\n", i)
		}
		part := summary.PartFile(segment.Segment{Index: i, Count: r.Spec.Segments}.Interval())
		ended[i] = Segment{Index: i, Pod: p.Name, Ended: podEnding(p)}
		if x := r.extract(r.segLog(i), "segment "+strconv.Itoa(i), part); x != nil && ended[i].Ended == "" {
			ended[i].Ended = x.Error()
		}
		if ended[i].Ended != "" {
			os.Remove(filepath.Join(r.Dir, part)) // a part of a segment cut short is not counted
		}
	}
	return ended, err
}

func (r *Run) segLog(i int) string { return filepath.Join(r.Dir, fmt.Sprintf("seg%d.log", i)) }

func (r *Run) grace() time.Duration {
	if r.Grace > 0 {
		return r.Grace
	}
	return 60 * time.Second
}

// wait follows a Job's pods until the Job completes or fails (done), and
// returns them as they ended. With follow, each pod's log is copied as it runs, so
// a pod deleted later has left what it printed. A container that cannot
// start, a pod still unscheduled or a Job still without its pods by
// deadline ends the wait with ErrCannotRun naming it; a pod deleted while
// it ran is named in the error returned at the Job's end.
func (r *Run) wait(ctx context.Context, job, component string, deadline time.Time, follow bool) (pods []corev1.Pod, done bool, err error) {
	poll := r.Poll
	if poll == 0 {
		poll = 2 * time.Second
	}
	said := map[string]string{}
	followed := map[string]bool{}
	seen := map[string]corev1.Pod{}
	var lost error
	failures := 0
	for {
		var j batchv1.Job
		var list corev1.PodList
		err = r.Get(ctx, &j, "job", job)
		if err == nil { // the pods after the Job: at its end, they are as it saw them
			err = r.Get(ctx, &list, "pods", "-l", LabelRunID+"="+r.RunID+","+LabelComponent+"="+component)
		}
		if err != nil {
			if failures++; failures >= 5 || ctx.Err() != nil {
				return values(seen), false, err
			}
			time.Sleep(poll)
			continue
		}
		failures = 0
		for _, p := range list.Items {
			seen[p.Name] = p
			if state := r.say(p, said[p.Name], component); state != said[p.Name] {
				said[p.Name] = state
			}
			if why := stuck(p, time.Now().After(deadline)); why != "" {
				return values(seen), false, fmt.Errorf("%w: %s %s", ErrCannotRun, who(p, component), why)
			}
			if follow && !followed[p.Name] && p.Status.Phase != corev1.PodPending {
				followed[p.Name] = true
				if i, ok := index(p); ok {
					r.followLogs(ctx, p.Name, r.segLog(i))
				}
			}
			if p.DeletionTimestamp != nil && lost == nil && p.Status.Phase == corev1.PodRunning {
				lost = fmt.Errorf("%s was deleted while it ran", who(p, component))
			}
		}
		if end, why := ended(j); end {
			if why != "" && lost == nil {
				lost = fmt.Errorf("job/%s failed: %s", job, why)
			}
			return values(seen), true, lost
		}
		if len(list.Items) == 0 && time.Now().After(deadline) {
			return nil, false, fmt.Errorf("%w: job/%s has no pod by now: %s", ErrCannotRun, job, r.events(ctx, job))
		}
		select {
		case <-ctx.Done():
			return values(seen), false, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// ended says whether a Job ended, and why it failed if it did.
func ended(j batchv1.Job) (bool, string) {
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return true, ""
		case batchv1.JobFailed:
			return true, strings.TrimSpace(c.Reason + " " + c.Message)
		}
	}
	return false, ""
}

// events are a Job's warnings (FailedCreate: a quota, a policy), joined.
func (r *Run) events(ctx context.Context, job string) string {
	var list corev1.EventList
	if err := r.Get(ctx, &list, "events", "--field-selector", "involvedObject.name="+job+",type=Warning"); err != nil {
		return err.Error()
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Reason+": "+e.Message)
	}
	if len(out) == 0 {
		return "no event says why"
	}
	return strings.Join(out, "; ")
}

// say prints a pod's state when it changed and returns it.
func (r *Run) say(p corev1.Pod, was, component string) string {
	state := string(p.Status.Phase)
	if p.DeletionTimestamp != nil {
		state = "Terminating"
	}
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil && w.Reason != "ContainerCreating" {
			state += " (" + w.Reason + ")"
		}
	}
	if state != was {
		where := ""
		if p.Spec.NodeName != "" {
			where = " on " + p.Spec.NodeName
		}
		fmt.Fprintf(r.Out, "imbench: kubernetes: %s: %s%s\n", who(p, component), state, where)
	}
	return state
}

// followLogs copies a pod's log, as it comes, into file.
func (r *Run) followLogs(ctx context.Context, pod, file string) {
	f, err := os.Create(file)
	if err != nil {
		fmt.Fprintln(r.Out, "imbench: kubernetes:", err)
		return
	}
	cmd := r.command(ctx, "logs", "-f", pod)
	cmd.Stdout = io.MultiWriter(f, &progressLines{out: r.Out, show: r.Spec.Segments <= showAllUpTo || strings.HasSuffix(file, "seg0.log")})
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		f.Close()
		fmt.Fprintf(r.Out, "imbench: kubernetes: following %s's log: %v\n", pod, err)
		return
	}
	r.follow.Add(1)
	go func() {
		defer r.follow.Done()
		cmd.Wait()
		f.Close()
	}()
}

func (r *Run) saveLogs(ctx context.Context, pod, file string) error {
	out, err := r.run(ctx, nil, "logs", pod)
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
}

// extract writes the one file a pod's log should hold into Dir.
func (r *Run) extract(log, what, name string) error {
	f, err := os.Open(log)
	if err != nil {
		return err
	}
	defer f.Close()
	files, err := ReadFiles(f)
	raw, ok := files[name]
	if ok {
		if werr := os.WriteFile(filepath.Join(r.Dir, name), raw, 0o644); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		return fmt.Errorf("%s printed no %s (its log: %s)", what, name, log)
	}
	return nil
}

// Cleanup removes every object of the run and says what is left, if any.
func (r *Run) Cleanup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	by := fmt.Sprintf("kubectl delete jobs,pods,secrets -n %s -l %s=%s", r.Spec.Namespace, LabelRunID, r.RunID)
	if err := r.DeleteRun(ctx, r.RunID); err != nil {
		return fmt.Errorf("%v; %s removes them", err, by)
	}
	left, err := r.Left(ctx, r.RunID)
	if err != nil {
		return fmt.Errorf("%v; %s removes them", err, by)
	}
	if len(left) > 0 {
		return fmt.Errorf("still in namespace %s: %s; %s removes them", r.Spec.Namespace, strings.Join(left, ", "), by)
	}
	return nil
}

// stuck says why a pod will not run, or "". Past its deadline, a pod not
// yet scheduled will not be.
func stuck(p corev1.Pod, late bool) string {
	for _, c := range p.Status.Conditions {
		if late && c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return "cannot be scheduled: " + c.Message
		}
	}
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil && slices.Contains(waiting, w.Reason) {
			return fmt.Sprintf("image %s: %s: %s", c.Image, w.Reason, w.Message)
		}
	}
	return ""
}

// podEnding says how a segment's pod ended: "" when its container exited 0.
func podEnding(p corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			if t.ExitCode == 0 && p.DeletionTimestamp == nil {
				return ""
			}
			if p.DeletionTimestamp != nil {
				return fmt.Sprintf("its pod %s was deleted while it ran", p.Name)
			}
			return fmt.Sprintf("its pod %s exited %d (%s)", p.Name, t.ExitCode, t.Reason)
		}
	}
	if p.DeletionTimestamp != nil {
		return fmt.Sprintf("its pod %s was deleted while it ran", p.Name)
	}
	return fmt.Sprintf("its pod %s ended %s", p.Name, p.Status.Phase)
}

func exitCode(p corev1.Pod) int {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			return int(t.ExitCode)
		}
	}
	return -1
}

// index is an Indexed Job's pod's completion index.
func index(p corev1.Pod) (int, bool) {
	i, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
	return i, err == nil
}

func who(p corev1.Pod, component string) string {
	if i, ok := index(p); ok && component == "segment" {
		return fmt.Sprintf("segment %d (pod %s)", i, p.Name)
	}
	return component + " pod " + p.Name
}

func values(m map[string]corev1.Pod) []corev1.Pod {
	out := make([]corev1.Pod, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// lastLines is a log's last n lines that are not file lines, joined.
func lastLines(file string, n int) string {
	raw, _ := os.ReadFile(file)
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if l != "" && !strings.Contains(l, filePrefix) {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, " / ")
}

// showAllUpTo: up to this many pods, every pod's progress lines are shown
// as they come; beyond, segment 0's alone, for one line a period.
const showAllUpTo = 4

// progressLines passes a pod's progress lines ("imbench: 0:12 sending
// [segment 1/4:1/2] · …") through to out, whole, the rest of its log not.
type progressLines struct {
	out     io.Writer
	show    bool
	partial []byte
}

func (p *progressLines) Write(b []byte) (int, error) {
	if !p.show {
		return len(b), nil
	}
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		line := p.partial[:i+1]
		if bytes.HasPrefix(line, []byte("imbench: ")) && bytes.Contains(line, []byte(" [segment ")) {
			p.out.Write(line)
		}
		p.partial = p.partial[i+1:]
	}
	return len(b), nil
}
