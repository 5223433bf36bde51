package kube

import (
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
)

// Run is one distributed run in progress.
type Run struct {
	Spec
	Kubectl
	Dir    string // results/<run id>: setup.json, the parts, seg<i>.log
	Secret string
	Out    io.Writer // one line per event
	// Poll is how often the pods are looked at (2 s when zero).
	Poll time.Duration

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
	Ended string // "" when it completed; else what happened, in words
}

// podsWaiting are the reasons a container waits that will not pass by
// themselves: the run is stopped with the reason.
var podsWaiting = []string{"ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName",
	"CreateContainerConfigError", "CreateContainerError", "RunContainerError"}

// Setup creates the secret and the setup Job, waits for it and writes the
// setup record it printed into Dir.
func (r *Run) Setup(ctx context.Context) error {
	if err := r.Create(ctx, r.Spec.Secret(r.Secret)); err != nil {
		return err
	}
	job := r.SetupJob()
	if err := r.Create(ctx, job); err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "imbench: kubernetes: job/%s sets the target up\n", job.Name)
	pods, err := r.wait(ctx, job.Name, "setup", 0)
	if len(pods) == 0 || errors.Is(err, ErrCannotRun) || ctx.Err() != nil {
		if err == nil {
			err = fmt.Errorf("job/%s ended with no pod", job.Name)
		}
		return err
	}
	log := filepath.Join(r.Dir, "setup.log")
	if err := r.saveLogs(ctx, pods[0].Name, log); err != nil {
		return err
	}
	if code := exitCode(pods[0]); code != 0 {
		last := lastLines(log, 3)
		if code == 2 {
			return fmt.Errorf("%w: the setup pod said: %s", ErrRefused, last)
		}
		return fmt.Errorf("the setup pod %s exited %d: %s (its log: %s)", pods[0].Name, code, last, log)
	}
	if err != nil {
		return err
	}
	return r.extract(log, "setup pod")
}

// RunSegments creates the Indexed Job, follows its pods until the Job ends,
// keeps each pod's log as seg<i>.log and the partial summaries its pod
// printed, and says how each segment ended.
func (r *Run) RunSegments(ctx context.Context) ([]Segment, error) {
	job := r.SegmentsJob()
	if err := r.Create(ctx, job); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Out, "imbench: kubernetes: job/%s, %d pods, starting together at %s\n", job.Name, r.Spec.Segments,
		time.UnixMilli(r.StartAtMs).Format("15:04:05"))
	pods, err := r.wait(ctx, job.Name, "segment", r.Spec.Segments)
	r.follow.Wait()
	ended := make([]Segment, r.Spec.Segments)
	for i := range ended {
		ended[i] = Segment{Index: i, Ended: "its pod never ran"}
	}
	for _, p := range pods {
		i, ok := index(p)
		if !ok || i >= len(ended) {
			continue
		}
		ended[i] = Segment{Index: i, Pod: p.Name, Ended: podEnding(p)}
		if x := r.extract(r.segLog(i), "segment "+strconv.Itoa(i)); x != nil && ended[i].Ended == "" {
			ended[i].Ended = x.Error()
		}
	}
	return ended, err
}

func (r *Run) Segments_() int { return r.Spec.Segments }

func (r *Run) segLog(i int) string { return filepath.Join(r.Dir, fmt.Sprintf("seg%d.log", i)) }

// wait follows a Job's pods until the Job completes or fails. want > 0
// is an Indexed Job's pod count: their logs are followed as they run, so a
// pod deleted later has left what it printed. A pod that cannot be
// scheduled or cannot start its container ends the wait with an error
// naming it; so does a pod deleted while it ran.
func (r *Run) wait(ctx context.Context, job, component string, want int) ([]corev1.Pod, error) {
	poll := r.Poll
	if poll == 0 {
		poll = 2 * time.Second
	}
	seen := map[string]string{} // pod → last state said
	pods := map[string]corev1.Pod{}
	var lost error
	for {
		var list corev1.PodList
		if err := r.Get(ctx, &list, "pods", "-l", LabelRunID+"="+r.RunID+","+LabelComponent+"="+component); err != nil {
			return values(pods), err
		}
		for _, p := range list.Items {
			pods[p.Name] = p
			state := r.say(p, seen[p.Name], component)
			if state == "" {
				continue
			}
			seen[p.Name] = state
			if why := stuck(p); why != "" {
				return values(pods), fmt.Errorf("%w: %s %s", ErrCannotRun, who(p, component), why)
			}
			if want > 0 && p.Status.Phase != corev1.PodPending && !strings.HasPrefix(seen[p.Name+"/log"], "y") {
				seen[p.Name+"/log"] = "y"
				if i, ok := index(p); ok {
					r.followLogs(ctx, p.Name, r.segLog(i))
				}
			}
			if p.DeletionTimestamp != nil && lost == nil && p.Status.Phase == corev1.PodRunning {
				lost = fmt.Errorf("%s was deleted while it ran", who(p, component))
			}
		}
		var j batchv1.Job
		if err := r.Get(ctx, &j, "job", job); err != nil {
			return values(pods), err
		}
		for _, c := range j.Status.Conditions {
			if c.Status != corev1.ConditionTrue {
				continue
			}
			switch c.Type {
			case batchv1.JobComplete:
				return values(pods), lost
			case batchv1.JobFailed:
				if lost == nil {
					lost = fmt.Errorf("job/%s failed: %s %s", job, c.Reason, c.Message)
				}
				return values(pods), lost
			}
		}
		select {
		case <-ctx.Done():
			return values(pods), ctx.Err()
		case <-time.After(poll):
		}
	}
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
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
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

// extract writes the files a pod's log holds into Dir.
func (r *Run) extract(log, what string) error {
	f, err := os.Open(log)
	if err != nil {
		return err
	}
	defer f.Close()
	files, err := ReadFiles(f)
	for name, raw := range files {
		if filepath.Base(name) != name {
			continue
		}
		if werr := os.WriteFile(filepath.Join(r.Dir, name), raw, 0o644); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("%s printed no results (its log: %s)", what, log)
	}
	return nil
}

// Cleanup removes every object of the run and says what is left, if any.
func (r *Run) Cleanup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := r.DeleteRun(ctx, r.RunID); err != nil {
		return err
	}
	left, err := r.Left(ctx, r.RunID)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("still in namespace %s: %s", r.Spec.Namespace, strings.Join(left, ", "))
	}
	return nil
}

// stuck says why a pod will not run, or "".
func stuck(p corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return "cannot be scheduled: " + c.Message
		}
	}
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil && slices.Contains(podsWaiting, w.Reason) {
			return fmt.Sprintf("image %s: %s: %s", c.Image, w.Reason, w.Message)
		}
	}
	return ""
}

// podEnding says how a segment's pod ended: "" when its container exited 0.
func podEnding(p corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			if t.ExitCode == 0 {
				return ""
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
