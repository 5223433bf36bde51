// Package kubernetes holds the manifests of runbooks/kubernetes.md: a
// distributed run as plain Kubernetes Jobs (a setup Job, an Indexed Job
// with one pod per segment, a merge Job) around a ReadWriteMany results
// volume. No cluster runs where imbench is tested, so this test checks what
// can be checked without one: every manifest decodes strictly into the
// Kubernetes API types (an unknown or misspelt field fails), the three
// steps agree with each other, with imbench's command line, with the
// segment arithmetic and with the image they run.
package kubernetes

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/segment"
)

const (
	pvcFile      = "results-pvc.yaml"
	readerFile   = "results-reader.yaml"
	setupFile    = "setup-job.yaml"
	segmentsFile = "segments-job.yaml"
	mergeFile    = "merge-job.yaml"
	runbook      = "../kubernetes.md"
	dockerfile   = "../../compose/Dockerfile"
	repoRoot     = "../.."

	// The users one segment pod is sized for (resources, node limits).
	usersPerPodSized = 20000
	// The RSS per held user a pod is sized for: above every density
	// figure of docs/benchmark.json (TestPodsAreSizedAboveTheBench).
	rssPerUser = 22 * 1024
	// The longest run id the runbook allows: the Indexed Job's pod hostname
	// imbench-seg-<run id>-<index> must stay within 63 characters.
	maxRunID = 40
)

// sample is what a user fills the placeholders with. Each value is unique,
// so finding it in a decoded field proves the field holds its placeholder.
var sample = map[string]string{
	"IMBENCH_IMAGE":     "registry.example.com/imbench/imbench:test",
	"IM_RUN_ID":         "k8s-" + strings.Repeat("r", maxRunID-4),
	"IM_START_AT":       "1767225600000",
	"IM_API_URL":        "http://openim-api.im.svc:10002",
	"IM_WS_URL":         "ws://openim-gw-0.im.svc:10001,ws://openim-gw-1.im.svc:10001",
	"PROMETHEUS_RW_URL": "http://prometheus.monitoring.svc:9090/api/v1/write",
	"LOG_PUSH_URL":      "http://victorialogs.monitoring.svc:9428/insert/loki/api/v1/push",
}

var placeholder = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// fill replaces the ${NAME} placeholders as envsubst would, and fails on
// one the runbook does not fill.
func fill(t *testing.T, name string, raw []byte) []byte {
	t.Helper()
	out := placeholder.ReplaceAllFunc(raw, func(m []byte) []byte {
		key := string(placeholder.FindSubmatch(m)[1])
		v, ok := sample[key]
		if !ok {
			t.Errorf("%s: placeholder ${%s} is not one the runbook fills (known: %s)", name, key, strings.Join(sortedKeys(sample), ", "))
		}
		return []byte(v)
	})
	if bytes.Contains(out, []byte("${")) {
		t.Errorf("%s: a ${ is left after filling the placeholders", name)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// decodeStrict decodes a YAML manifest into a Kubernetes API type and
// refuses what the type does not have: sigs.k8s.io/yaml's strict mode fails
// on unknown fields and duplicate keys, and since its JSON step matches
// field names regardless of case, every key of the file must also come
// back, spelt the same, when the typed object is encoded again.
func decodeStrict(raw []byte, into any) error {
	if err := yaml.UnmarshalStrict(raw, into); err != nil {
		return err
	}
	var orig any
	if err := yaml.Unmarshal(raw, &orig); err != nil {
		return err
	}
	back, err := json.Marshal(into)
	if err != nil {
		return err
	}
	var round any
	if err := json.Unmarshal(back, &round); err != nil {
		return err
	}
	return sameKeys("", orig, round)
}

func sameKeys(path string, orig, round any) error {
	switch o := orig.(type) {
	case map[string]any:
		r, _ := round.(map[string]any)
		for _, k := range sortedKeys(o) {
			rv, ok := r[k]
			if !ok {
				if isZero(o[k]) {
					continue // dropped by omitempty, not unknown
				}
				return fmt.Errorf("field %s%s is not in the API type (misspelt or wrong case?)", path, k)
			}
			if err := sameKeys(path+k+".", o[k], rv); err != nil {
				return err
			}
		}
	case []any:
		r, _ := round.([]any)
		for i := range o {
			if i >= len(r) {
				return fmt.Errorf("%s[%d] lost in decoding", path, i)
			}
			if err := sameKeys(fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i), o[i], r[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func isZero(v any) bool {
	return v == nil || reflect.ValueOf(v).IsZero() ||
		(reflect.ValueOf(v).Kind() == reflect.Map || reflect.ValueOf(v).Kind() == reflect.Slice) && reflect.ValueOf(v).Len() == 0
}

// manifests are the four manifests a run applies, filled and decoded.
type manifests struct {
	pvc                   corev1.PersistentVolumeClaim
	reader                corev1.Pod
	setup, segments, merg batchv1.Job
	raw                   map[string]string // as in the files, placeholders unfilled
}

func load(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{raw: map[string]string{}}
	for _, f := range []struct {
		name       string
		into       any
		apiVersion string
		kind       string
	}{
		{pvcFile, &m.pvc, "v1", "PersistentVolumeClaim"},
		{readerFile, &m.reader, "v1", "Pod"},
		{setupFile, &m.setup, "batch/v1", "Job"},
		{segmentsFile, &m.segments, "batch/v1", "Job"},
		{mergeFile, &m.merg, "batch/v1", "Job"},
	} {
		raw, err := os.ReadFile(f.name)
		if err != nil {
			t.Fatal(err)
		}
		m.raw[f.name] = string(raw)
		if bytes.Contains(raw, []byte("\n---")) {
			t.Fatalf("%s: one object per file", f.name)
		}
		if err := decodeStrict(fill(t, f.name, raw), f.into); err != nil {
			t.Fatalf("%s does not decode strictly into %s %s: %v", f.name, f.apiVersion, f.kind, err)
		}
		gvk := f.into.(interface{ GetObjectKind() schema.ObjectKind }).GetObjectKind().GroupVersionKind()
		if gvk.GroupVersion().String() != f.apiVersion || gvk.Kind != f.kind {
			t.Fatalf("%s is apiVersion %q, kind %q; want %s %s", f.name, gvk.GroupVersion().String(), gvk.Kind, f.apiVersion, f.kind)
		}
	}
	return m
}

// The strict decoder itself: a misspelt field, a field in the wrong case
// and a duplicate key all fail.
func TestDecoderIsStrict(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field":  "apiVersion: batch/v1\nkind: Job\nspec:\n  completion: 6\n",
		"wrong case":     "apiVersion: batch/v1\nkind: Job\nspec:\n  Completions: 6\n",
		"duplicate key":  "apiVersion: batch/v1\nkind: Job\nspec:\n  completions: 6\n  completions: 7\n",
		"a field of pod": "apiVersion: batch/v1\nkind: Job\nspec:\n  restartPolicy: Never\n",
	} {
		var j batchv1.Job
		if err := decodeStrict([]byte(doc), &j); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	var j batchv1.Job
	if err := decodeStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completions: 6\n  backoffLimit: 0\n"), &j); err != nil {
		t.Errorf("a valid Job: %v", err)
	}
}

// runArgs is `imbench run`'s command line as the manifests use it; an
// unknown flag or a stray argument fails the parse.
type runArgs struct {
	scenario, target, runID, segment, startAt, results, promRW, logPush string
	quiet, setupOnly                                                    bool
	set                                                                 map[string]bool
}

func parseRun(t *testing.T, where string, args []string) runArgs {
	t.Helper()
	if len(args) == 0 || args[0] != "run" {
		t.Fatalf("%s: args %q do not start with the run command", where, args)
	}
	var a runArgs
	fs := flag.NewFlagSet(where, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.scenario, "scenario", "", "")
	fs.StringVar(&a.target, "target", "", "")
	fs.StringVar(&a.runID, "run-id", "", "")
	fs.StringVar(&a.segment, "segment", "", "")
	fs.StringVar(&a.startAt, "start-at", "", "")
	fs.StringVar(&a.results, "results", "", "")
	fs.StringVar(&a.promRW, "prometheus-rw-url", "", "")
	fs.StringVar(&a.logPush, "log-push-url", "", "")
	fs.BoolVar(&a.quiet, "q", false, "")
	fs.BoolVar(&a.setupOnly, "setup-only", false, "")
	if err := fs.Parse(args[1:]); err != nil {
		t.Fatalf("%s: imbench run %q: %v", where, args[1:], err)
	}
	if fs.NArg() > 0 {
		t.Fatalf("%s: imbench run: stray arguments %q", where, fs.Args())
	}
	a.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { a.set[f.Name] = true })
	return a
}

type mergeArgs struct {
	run, results string
	segments     int
}

func parseMerge(t *testing.T, args []string) mergeArgs {
	t.Helper()
	if len(args) == 0 || args[0] != "merge" {
		t.Fatalf("merge Job: args %q do not start with the merge command", args)
	}
	var a mergeArgs
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.run, "run", "", "")
	fs.IntVar(&a.segments, "segments", 0, "")
	fs.StringVar(&a.results, "results", "", "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		t.Fatalf("merge Job: imbench merge %q: %v %q", args[1:], err, fs.Args())
	}
	return a
}

// only returns a Job's one container.
func only(t *testing.T, name string, j *batchv1.Job) corev1.Container {
	t.Helper()
	cs := j.Spec.Template.Spec.Containers
	if len(cs) != 1 || len(j.Spec.Template.Spec.InitContainers) > 0 {
		t.Fatalf("%s: want exactly one container", name)
	}
	if len(cs[0].Command) != 1 || cs[0].Command[0] != "imbench" {
		t.Errorf("%s: command %q, want [imbench] (whatever the image's entrypoint)", name, cs[0].Command)
	}
	return cs[0]
}

// segmentCount reads N from the segment pods' "-segment $(JOB_COMPLETION_INDEX)/N".
func segmentCount(t *testing.T, a runArgs) int {
	t.Helper()
	rest, ok := strings.CutPrefix(a.segment, "$(JOB_COMPLETION_INDEX)/")
	if !ok {
		t.Fatalf("segment pods: -segment %q, want $(JOB_COMPLETION_INDEX)/N (Kubernetes expands it from the env the Job controller adds)", a.segment)
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		t.Fatalf("segment pods: -segment %q: N is not a number", a.segment)
	}
	return n
}

func envOf(t *testing.T, where string, c corev1.Container) map[string]corev1.EnvVar {
	t.Helper()
	m := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		if _, dup := m[e.Name]; dup {
			t.Errorf("%s: %s set twice", where, e.Name)
		}
		m[e.Name] = e
	}
	if len(c.EnvFrom) > 0 {
		t.Errorf("%s: envFrom hides what the pod gets; list each variable", where)
	}
	return m
}

func TestSegmentsJob(t *testing.T) {
	m := load(t)
	j := &m.segments
	c := only(t, segmentsFile, j)
	a := parseRun(t, segmentsFile, c.Args)
	n := segmentCount(t, a)

	if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v: want Indexed, so that each pod gets its JOB_COMPLETION_INDEX", deref(j.Spec.CompletionMode))
	}
	if j.Spec.Completions == nil || j.Spec.Parallelism == nil || int(*j.Spec.Completions) != n || int(*j.Spec.Parallelism) != n {
		t.Errorf("completions %v and parallelism %v must both equal the N of -segment %s: every segment runs, all at once",
			deref(j.Spec.Completions), deref(j.Spec.Parallelism), a.segment)
	}
	if n < 2 {
		t.Errorf("N = %d: a distributed run has several segments", n)
	}
	if j.Spec.BackoffLimitPerIndex != nil && *j.Spec.BackoffLimitPerIndex != 0 {
		t.Errorf("backoffLimitPerIndex %d: a failed segment must not be rerun", *j.Spec.BackoffLimitPerIndex)
	}
	if j.Spec.BackoffLimitPerIndex == nil && (j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0) {
		t.Errorf("backoffLimit %v: want 0 (or backoffLimitPerIndex 0): a segment rerun would start its users again on a clock already past", deref(j.Spec.BackoffLimit))
	}
	if p := j.Spec.PodReplacementPolicy; p == nil || *p != batchv1.Failed {
		t.Errorf("podReplacementPolicy %v: want Failed, no second pod for an index while the first still terminates", p)
	}
	if j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: want Never (OnFailure restarts a segment in place)", j.Spec.Template.Spec.RestartPolicy)
	}
	if a.setupOnly || !a.quiet {
		t.Errorf("segment pods: want -q and no -setup-only, got %q", c.Args)
	}
	if a.startAt != sample["IM_START_AT"] {
		t.Errorf("segment pods: -start-at %q, want ${IM_START_AT}: the common clock of all pods", a.startAt)
	}
	if a.promRW != sample["PROMETHEUS_RW_URL"] || a.logPush != sample["LOG_PUSH_URL"] {
		t.Errorf("segment pods: -prometheus-rw-url %q, -log-push-url %q: want ${PROMETHEUS_RW_URL} and ${LOG_PUSH_URL}", a.promRW, a.logPush)
	}
	env := envOf(t, segmentsFile, c)
	if _, ok := env["JOB_COMPLETION_INDEX"]; ok {
		t.Error("segment pods set JOB_COMPLETION_INDEX themselves: the Job controller adds it, and would then leave theirs in place")
	}
	vus, err := strconv.Atoi(env["IM_VUS"].Value)
	if err != nil || vus < n {
		t.Errorf("IM_VUS %q: want at least %d, one worker per segment (a segment without a worker holds nobody)", env["IM_VUS"].Value, n)
	}
	users, err := strconv.Atoi(env["IM_USERS"].Value)
	if err != nil || users < 1 {
		t.Fatalf("IM_USERS %q: want the run's users", env["IM_USERS"].Value)
	}
	if per := (users + n - 1) / n; per > usersPerPodSized {
		t.Errorf("%d users over %d pods is %d per pod; the pods are sized for %d: raise completions", users, n, per, usersPerPodSized)
	}

	// Resources: the memory 20,000 held users take, a memory limit above
	// the request, a CPU request.
	res := c.Resources
	memReq, memLim, cpuReq := res.Requests[corev1.ResourceMemory], res.Limits[corev1.ResourceMemory], res.Requests[corev1.ResourceCPU]
	need := resource.NewQuantity(usersPerPodSized*rssPerUser, resource.BinarySI)
	if memReq.Cmp(*need) < 0 {
		t.Errorf("memory request %s is below %s, what %d held users take", memReq.String(), need.String(), usersPerPodSized)
	}
	if memLim.IsZero() || memLim.Cmp(memReq) < 0 {
		t.Errorf("memory limit %s: want one at or above the request %s", memLim.String(), memReq.String())
	}
	if cpuReq.Cmp(resource.MustParse("1")) < 0 {
		t.Errorf("cpu request %s: want at least one core per segment pod", cpuReq.String())
	}

	// The deadline covers a run: up to ten minutes' wait for -start-at,
	// two login windows, the hold and the drain.
	hold, err1 := time.ParseDuration(env["IM_HOLD"].Value)
	login, err2 := time.ParseDuration(env["IM_LOGIN_WINDOW"].Value)
	if err1 != nil || err2 != nil {
		t.Fatalf("IM_HOLD %q, IM_LOGIN_WINDOW %q: want durations", env["IM_HOLD"].Value, env["IM_LOGIN_WINDOW"].Value)
	}
	want := 10*time.Minute + 2*login + hold + 10*time.Minute
	if d := j.Spec.ActiveDeadlineSeconds; d == nil || time.Duration(*d)*time.Second < want {
		t.Errorf("activeDeadlineSeconds %v: below %s, the wait, the logins, IM_HOLD and the drain", deref(d), want)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// The three steps run one scenario against one target with one run id,
// image and results volume.
func TestStepsAgree(t *testing.T) {
	m := load(t)
	setupC, segC, mergeC := only(t, setupFile, &m.setup), only(t, segmentsFile, &m.segments), only(t, mergeFile, &m.merg)
	setup, seg := parseRun(t, setupFile, setupC.Args), parseRun(t, segmentsFile, segC.Args)
	merge := parseMerge(t, mergeC.Args)
	n := segmentCount(t, seg)

	if !setup.setupOnly || setup.set["segment"] || setup.set["start-at"] {
		t.Errorf("setup Job: want -setup-only and neither -segment nor -start-at, got %q", setupC.Args)
	}
	if setup.scenario == "" || setup.scenario != seg.scenario || setup.target == "" || setup.target != seg.target {
		t.Errorf("setup runs %s on %s, the segments %s on %s", setup.scenario, setup.target, seg.scenario, seg.target)
	}
	runID := sample["IM_RUN_ID"]
	if setup.runID != runID || seg.runID != runID || merge.run != runID {
		t.Errorf("run ids: setup %q, segments %q, merge %q; want ${IM_RUN_ID} in all three (user ids derive from it)", setup.runID, seg.runID, merge.run)
	}
	if merge.segments != n {
		t.Errorf("merge -segments %d, but the segment Job runs %d segments", merge.segments, n)
	}
	for name, c := range map[string]corev1.Container{setupFile: setupC, segmentsFile: segC, mergeFile: mergeC} {
		if c.Image != sample["IMBENCH_IMAGE"] {
			t.Errorf("%s: image %q, want ${IMBENCH_IMAGE}", name, c.Image)
		}
	}

	// Results: -results is where each pod mounts the one claim.
	claim := m.pvc.Name
	if !slices.Contains(m.pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("%s: access modes %v, want ReadWriteMany (pods on several nodes write it)", pvcFile, m.pvc.Spec.AccessModes)
	}
	for name, s := range map[string]struct {
		results string
		job     *batchv1.Job
	}{setupFile: {setup.results, &m.setup}, segmentsFile: {seg.results, &m.segments}, mergeFile: {merge.results, &m.merg}} {
		ps := s.job.Spec.Template.Spec
		if s.results == "" || mountOf(ps.Containers[0], ps.Volumes, claim) != s.results {
			t.Errorf("%s: -results %q is not where the claim %s is mounted", name, s.results, claim)
		}
	}
	if rp := m.reader.Spec; len(rp.Containers) != 1 || mountOf(rp.Containers[0], rp.Volumes, claim) != seg.results {
		t.Errorf("%s must mount the claim %s at %s, for kubectl cp", readerFile, claim, seg.results)
	}

	// What shapes the plan and reaches the target is the same for setup and
	// segments; the secret comes from a Secret.
	senv, genv := envOf(t, setupFile, setupC), envOf(t, segmentsFile, segC)
	names := map[string]bool{}
	for k := range senv {
		names[k] = true
	}
	for k := range genv {
		names[k] = true
	}
	for _, name := range sortedKeys(names) {
		if !reflect.DeepEqual(senv[name], genv[name]) {
			t.Errorf("%s differs between the setup Job and the segment pods: they must see the same environment", name)
		}
	}
	profiles, err := profile.Load(filepath.Join(repoRoot, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := profiles[seg.target]
	if !ok {
		t.Fatalf("target %q has no profile under targets/", seg.target)
	}
	for name := range p.Endpoints {
		e := profile.EnvName(name)
		if v := genv[e].Value; v != sample[e] {
			t.Errorf("%s: %s %q, want ${%s}: target %s's %s endpoint", segmentsFile, e, v, e, p.Name, name)
		}
	}
	if genv["IM_ALLOW_REMOTE"].Value != "1" {
		t.Error("IM_ALLOW_REMOTE=1 is needed: the target is not on the pod's loopback")
	}
	secretEnv := p.SecretEnv
	if secretEnv == "" {
		secretEnv = "IM_SECRET"
	}
	for name, env := range map[string]map[string]corev1.EnvVar{setupFile: senv, segmentsFile: genv} {
		s := env[secretEnv]
		if s.Value != "" || s.ValueFrom == nil || s.ValueFrom.SecretKeyRef == nil || s.ValueFrom.SecretKeyRef.Name == "" || s.ValueFrom.SecretKeyRef.Key == "" {
			t.Errorf("%s: %s must come from a secretKeyRef, never a value in the file", name, secretEnv)
		}
	}
	if e := mergeC.Env; len(e) > 0 {
		t.Errorf("merge Job: no environment needed, got %v", e)
	}

	// The scenario is one of the repository's, and the image carries it.
	if _, err := os.Stat(filepath.Join(repoRoot, "load", "scenarios", seg.scenario+".js")); err != nil {
		t.Errorf("scenario %s: %v", seg.scenario, err)
	}
}

// mountOf is where c mounts the volume backed by claim, or "".
func mountOf(c corev1.Container, vols []corev1.Volume, claim string) string {
	for _, v := range vols {
		if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim {
			continue
		}
		for _, vm := range c.VolumeMounts {
			if vm.Name == v.Name && vm.SubPath == "" {
				return vm.MountPath
			}
		}
	}
	return ""
}

// safeSysctls are the namespaced sysctls the kubelet allows without an
// allow-list of its own (Kubernetes' "safe" set).
var safeSysctls = []string{
	"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
	"net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
	"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
	"net.ipv4.tcp_keepalive_probes",
}

// No pod is privileged, none escalates, none touches the host.
func TestNoPrivilegedPods(t *testing.T) {
	m := load(t)
	pods := map[string]corev1.PodSpec{
		readerFile:   m.reader.Spec,
		setupFile:    m.setup.Spec.Template.Spec,
		segmentsFile: m.segments.Spec.Template.Spec,
		mergeFile:    m.merg.Spec.Template.Spec,
	}
	for name, ps := range pods {
		if ps.HostNetwork || ps.HostPID || ps.HostIPC {
			t.Errorf("%s: uses the host's network, PIDs or IPC", name)
		}
		sc := ps.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
			t.Errorf("%s: want runAsNonRoot and a non-root runAsUser", name)
		}
		if sc != nil {
			for _, s := range sc.Sysctls {
				if !slices.Contains(safeSysctls, s.Name) {
					t.Errorf("%s: sysctl %s is not in the safe set; it would need the kubelet's --allowed-unsafe-sysctls", name, s.Name)
				}
			}
		}
		for _, v := range ps.Volumes {
			if v.HostPath != nil {
				t.Errorf("%s: hostPath volume %s", name, v.Name)
			}
		}
		for _, c := range append(slices.Clone(ps.InitContainers), ps.Containers...) {
			cs := c.SecurityContext
			switch {
			case cs == nil:
				t.Errorf("%s/%s: no securityContext", name, c.Name)
			case cs.Privileged != nil && *cs.Privileged:
				t.Errorf("%s/%s: privileged", name, c.Name)
			case cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation:
				t.Errorf("%s/%s: want allowPrivilegeEscalation: false", name, c.Name)
			case cs.Capabilities == nil || len(cs.Capabilities.Add) > 0 || !slices.Contains(cs.Capabilities.Drop, "ALL"):
				t.Errorf("%s/%s: want capabilities dropped (ALL) and none added", name, c.Name)
			}
			if c.Image == "" || !strings.Contains(c.Image, ":") || strings.HasSuffix(c.Image, ":latest") {
				t.Errorf("%s/%s: image %q: want a pinned tag", name, c.Name, c.Image)
			}
		}
	}
	for _, name := range []string{setupFile, mergeFile} {
		j := map[string]*batchv1.Job{setupFile: &m.setup, mergeFile: &m.merg}[name]
		if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 || j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: want backoffLimit 0 and restartPolicy Never: a failed step is looked at, not retried", name)
		}
		if j.Spec.ActiveDeadlineSeconds == nil || *j.Spec.ActiveDeadlineSeconds <= 0 {
			t.Errorf("%s: want activeDeadlineSeconds: every step stops by itself", name)
		}
	}
	if c := m.reader.Spec.Containers; len(c) != 1 || len(c[0].Command) != 2 || c[0].Command[0] != "sleep" {
		t.Errorf("%s: the reader must exit by itself (sleep N)", readerFile)
	}
}

// The N indexes of the Indexed Job split the workers exactly: every worker
// is in one segment and in one only, whatever the total, and every segment
// writes a partial summary of its own name.
func TestSegmentArithmetic(t *testing.T) {
	m := load(t)
	c := only(t, segmentsFile, &m.segments)
	n := segmentCount(t, parseRun(t, segmentsFile, c.Args))
	env := envOf(t, segmentsFile, c)
	vus, _ := strconv.Atoi(env["IM_VUS"].Value)
	users, _ := strconv.Atoi(env["IM_USERS"].Value)

	segs := make([]segment.Segment, n)
	parts := map[string]int{}
	for i := range n {
		// What the pod of index i gets once Kubernetes expands the variable.
		arg := strings.ReplaceAll(c.Args[slices.Index(c.Args, "-segment")+1], "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))
		s, err := segment.Parse(arg)
		if err != nil {
			t.Fatalf("index %d: %v", i, err)
		}
		if s.Index != i || s.Count != n {
			t.Fatalf("index %d: -segment %s parsed as %v", i, arg, s)
		}
		segs[i] = s
		f := summary.PartFile(s.Interval())
		if j, dup := parts[f]; dup {
			t.Errorf("indexes %d and %d both write %s", j, i, f)
		}
		parts[f] = i
	}
	totals := []int{1, n - 1, n, n + 1, 2*n + 1, vus, users, 99991, 100003, usersPerPodSized * n}
	for _, total := range totals {
		if total < 1 {
			continue
		}
		held := make([]int, total+1) // held[w]: segments running worker w (1-based)
		next := 1
		for _, s := range segs {
			lo, hi := s.VUs(total)
			if lo != next {
				t.Errorf("total %d: segment %s starts at worker %d, want %d (no gap, no overlap)", total, s, lo, next)
			}
			for w := max(lo, 1); w <= min(hi, total); w++ {
				held[w]++
			}
			if hi >= lo {
				next = hi + 1
			}
		}
		for w := 1; w <= total; w++ {
			if held[w] != 1 {
				t.Errorf("total %d over %d segments: worker %d is run by %d segments, want 1", total, n, w, held[w])
			}
		}
	}
	// With the manifest's IM_VUS, no segment is left without a worker.
	for _, s := range segs {
		if lo, hi := s.VUs(vus); hi < lo {
			t.Errorf("IM_VUS %d over %d segments leaves segment %s without a worker", vus, n, s)
		}
	}
}

// Names built from the run id stay valid Kubernetes names for any run id
// the runbook allows, and every placeholder is one the runbook fills.
func TestPlaceholders(t *testing.T) {
	m := load(t)
	used := map[string]bool{}
	for name, raw := range m.raw {
		for _, p := range placeholder.FindAllStringSubmatch(raw, -1) {
			used[p[1]] = true
		}
		if name != segmentsFile && strings.Contains(raw, "$(") {
			t.Errorf("%s: $(...) is expanded only from a container's env; only the segment Job has JOB_COMPLETION_INDEX", name)
		}
	}
	book, err := os.ReadFile(runbook)
	if err != nil {
		t.Fatal(err)
	}
	// The runbook's envsubst list is exactly the placeholders: envsubst
	// then touches nothing else in the files.
	vars := regexp.MustCompile(`(?m)^\s*VARS='([^']*)'`).FindSubmatch(book)
	if vars == nil {
		t.Fatal("runbooks/kubernetes.md has no VARS='$A $B ...' line, the list envsubst fills")
	}
	var listed []string
	for _, v := range strings.Fields(string(vars[1])) {
		listed = append(listed, strings.TrimPrefix(v, "$"))
	}
	sort.Strings(listed)
	if want := sortedKeys(used); !slices.Equal(listed, want) {
		t.Errorf("the runbook's VARS lists %v; the manifests use %v", listed, want)
	}
	for v := range used {
		if !bytes.Contains(book, []byte("export "+v+"=")) {
			t.Errorf("the runbook never exports %s", v)
		}
	}
	if !bytes.Contains(book, []byte(fmt.Sprintf("%d characters", maxRunID))) {
		t.Errorf("the runbook must say a run id has at most %d characters", maxRunID)
	}

	n := int(deref32(m.segments.Spec.Completions))
	for name, j := range map[string]*batchv1.Job{setupFile: &m.setup, segmentsFile: &m.segments, mergeFile: &m.merg} {
		if errs := validation.IsDNS1123Label(j.Name); len(errs) > 0 {
			t.Errorf("%s: Job name %q with a %d-character run id: %v", name, j.Name, maxRunID, errs)
		}
		for k, v := range j.Spec.Template.Labels {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				t.Errorf("%s: label %s=%q: %v", name, k, v, errs)
			}
		}
	}
	// An Indexed Job's pod hostname is <job name>-<index>.
	if host := fmt.Sprintf("%s-%d", m.segments.Name, n-1); len(validation.IsDNS1123Label(host)) > 0 {
		t.Errorf("segment pod hostname %q is not a valid DNS label with a %d-character run id", host, maxRunID)
	}
}

func deref32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// The manifests run the image the runbook builds: compose/Dockerfile's
// stage must hold imbench, the scenarios and the target profiles under its
// working directory /work, and run as the pods' user.
func TestImageCarriesScenarios(t *testing.T) {
	m := load(t)
	book, err := os.ReadFile(runbook)
	if err != nil {
		t.Fatal(err)
	}
	build := regexp.MustCompile(`docker build -f compose/Dockerfile --target ([a-z0-9-]+)`).FindSubmatch(book)
	if build == nil {
		t.Fatal("runbooks/kubernetes.md does not build the image with `docker build -f compose/Dockerfile --target <stage>`")
	}
	stageName := string(build[1])
	df, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	stages := dockerStages(string(df))
	const pending = " (compose/Dockerfile is being changed to build imbench's runner image; until that lands the manifests' image lacks it)"
	stage, ok := stages[stageName]
	if !ok {
		t.Fatalf("compose/Dockerfile has no stage %q, the one the runbook builds%s", stageName, pending)
	}
	if !regexp.MustCompile(`(?m)^COPY +(--\S+ +)*load/scenarios +/work/load/scenarios/?\s*$`).MatchString(stage) {
		t.Errorf("compose/Dockerfile stage %s does not copy load/scenarios to /work/load/scenarios: the pods run -scenario from there%s", stageName, pending)
	}
	if !regexp.MustCompile(`(?m)^COPY +--from=\S+ +\S*targets\S* +/work/targets/?\s*$|^COPY +targets +/work/targets/?\s*$`).MatchString(stage) {
		t.Errorf("compose/Dockerfile stage %s does not put the target profiles at /work/targets: -target reads targets/<name>/profile.yaml%s", stageName, pending)
	}
	if !regexp.MustCompile(`(?m)^WORKDIR +/work/?\s*$`).MatchString(stage) {
		t.Errorf("compose/Dockerfile stage %s: WORKDIR is not /work%s", stageName, pending)
	}
	if !regexp.MustCompile(`(?m)^COPY +--from=\S+ +\S*/imbench +/usr/local/bin/imbench\s*$`).MatchString(stage) ||
		!regexp.MustCompile(`go build [^\n]*-o \S*/imbench \./cmd/imbench`).MatchString(string(df)) {
		t.Errorf("compose/Dockerfile stage %s does not carry the imbench binary at /usr/local/bin/imbench%s", stageName, pending)
	}
	uid := m.segments.Spec.Template.Spec.SecurityContext.RunAsUser
	if uid == nil || !regexp.MustCompile(fmt.Sprintf(`--uid %d\b`, *uid)).MatchString(stage) {
		t.Errorf("compose/Dockerfile stage %s has no user with the pods' runAsUser %v%s", stageName, deref(uid), pending)
	}
}

// dockerStages splits a Dockerfile into its named stages' text, with
// continued lines joined.
func dockerStages(df string) map[string]string {
	df = strings.ReplaceAll(df, "\\\n", " ")
	out := map[string]string{}
	from := regexp.MustCompile(`(?i)^FROM\s+\S+\s+AS\s+(\S+)`)
	cur := ""
	for _, line := range strings.Split(df, "\n") {
		if m := from.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if cur != "" && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			out[cur] += strings.TrimSpace(line) + "\n"
		}
	}
	return out
}

// The pods are sized above what the generator holds a user in, as the
// published bench run (docs/benchmark.json) measured it over each protocol.
func TestPodsAreSizedAboveTheBench(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "benchmark.json"))
	if err != nil {
		t.Fatal(err)
	}
	type density struct {
		RSSPerUser float64 `json:"rss_per_user_bytes"`
	}
	var b struct {
		Density *density `json:"density"`
		Others  map[string]struct {
			Density *density `json:"density"`
		} `json:"other_protocols"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	all := map[string]*density{"openim": b.Density}
	for p, o := range b.Others {
		all[p] = o.Density
	}
	measured := 0
	for p, d := range all {
		if d == nil {
			continue
		}
		measured++
		if d.RSSPerUser <= 0 || d.RSSPerUser > rssPerUser {
			t.Errorf("%s: the bench measured %.0f B per held user; pods are sized for %d", p, d.RSSPerUser, rssPerUser)
		}
	}
	if measured == 0 {
		t.Fatal("docs/benchmark.json has no density figure")
	}
}
