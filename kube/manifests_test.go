package kube

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/imbench/imbench/load/segment"
)

// The runbook's manifests are what `imbench run -on kubernetes` creates:
// `imbench generate` writes them from Example, and they must not drift.
func TestRunbookManifestsAreGenerated(t *testing.T) {
	want, err := RunbookManifests()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("..", RunbookDir, "*.yaml"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for n := range want {
			if !yield(n) {
				return
			}
		}
	}); !slices.Equal(got, names) {
		t.Fatalf("%s holds %v, the run creates %v: run imbench generate", RunbookDir, names, got)
	}
	for name, b := range want {
		have, err := os.ReadFile(filepath.Join("..", RunbookDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, b) {
			t.Errorf("%s drifted from kube/manifests.go: run imbench generate", name)
		}
	}
}

var placeholder = regexp.MustCompile(`\$\{([A-Z_]+)\}`)

// Filled as envsubst would, every manifest decodes strictly into the
// Kubernetes API types (a misspelt or unknown field fails), keeps the
// secret out of the Jobs and runs unprivileged.
func TestRunbookManifestsDecodeStrictly(t *testing.T) {
	ms, err := RunbookManifests()
	if err != nil {
		t.Fatal(err)
	}
	fill := func(b []byte) []byte {
		return placeholder.ReplaceAllFunc(b, func(m []byte) []byte {
			if string(m) == "${IM_START_AT}" {
				return []byte("1767225600000")
			}
			return []byte("filled" + strings.ToLower(strings.ReplaceAll(string(m[2:len(m)-1]), "_", "")))
		})
	}
	var secret corev1.Secret
	if err := yaml.UnmarshalStrict(fill(ms["secret.yaml"]), &secret); err != nil {
		t.Fatal("secret.yaml:", err)
	}
	for _, name := range []string{"setup-job.yaml", "segments-job.yaml"} {
		raw := ms[name]
		var job batchv1.Job
		if err := yaml.UnmarshalStrict(fill(raw), &job); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pod := job.Spec.Template.Spec
		c := pod.Containers[0]
		if pod.HostNetwork || !*pod.SecurityContext.RunAsNonRoot || *c.SecurityContext.AllowPrivilegeEscalation ||
			!slices.Equal(c.SecurityContext.Capabilities.Drop, []corev1.Capability{"ALL"}) || !neverRetried(job) {
			t.Errorf("%s: not the restricted, never-retried pod it should be: %+v", name, pod)
		}
		if got := c.Env[0]; got.Name != SecretKey || got.Value != "" || got.ValueFrom == nil || got.ValueFrom.SecretKeyRef.Name != secret.Name {
			t.Errorf("%s: %s is not read from the run's Secret %s: %+v", name, SecretKey, secret.Name, got)
		}
	}
}

// The segments Job's pods run the segments of the run: its completions
// are the n of -segment $(JOB_COMPLETION_INDEX)/n, and a failed pod is
// neither retried nor replaced.
func TestSegmentsJobRunsEverySegmentOnce(t *testing.T) {
	s := Example()
	s.Segments = 4
	job := s.SegmentsJob()
	args := job.Spec.Template.Spec.Containers[0].Args
	at := slices.Index(args, "-segment")
	if at < 0 || args[at+1] != "$(JOB_COMPLETION_INDEX)/4" {
		t.Fatalf("args %v", args)
	}
	for i := 0; i < 4; i++ {
		if _, err := segment.Parse(strings.Replace(args[at+1], "$(JOB_COMPLETION_INDEX)", string(rune('0'+i)), 1)); err != nil {
			t.Fatal(err)
		}
	}
	if *job.Spec.Completions != 4 || *job.Spec.Parallelism != 4 || *job.Spec.CompletionMode != batchv1.IndexedCompletion ||
		*job.Spec.PodReplacementPolicy != batchv1.Failed || !neverRetried(*job) || *job.Spec.MaxFailedIndexes != 4 {
		t.Fatalf("job spec %+v", job.Spec)
	}
	if Name("20261207_004500_A1b2c3") != "20261207-004500-a1b2c3" {
		t.Fatal(Name("20261207_004500_A1b2c3"))
	}
}

// neverRetried: a Job whose failed pod is not started again, either the
// whole Job's (setup) or each index's (segments: the others run on).
func neverRetried(j batchv1.Job) bool {
	if j.Spec.BackoffLimitPerIndex != nil {
		return *j.Spec.BackoffLimitPerIndex == 0 && j.Spec.BackoffLimit == nil
	}
	return j.Spec.BackoffLimit != nil && *j.Spec.BackoffLimit == 0
}
