// Package kubernetes holds the manifests of runbooks/kubernetes.md: a
// distributed run on the k6-operator. No cluster runs where imbench is
// tested, so this test checks what can be checked without one: the fields
// exist in the TestRun and Job schemas (unknown ones fail the decode), and
// the two steps agree with each other, with the image and with the
// scenario they run.
package kubernetes

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type envVar struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		FieldRef struct {
			FieldPath string `yaml:"fieldPath"`
		} `yaml:"fieldRef"`
	} `yaml:"valueFrom"`
}

type envFrom struct {
	SecretRef struct {
		Name string `yaml:"name"`
	} `yaml:"secretRef"`
}

type resources struct {
	Requests map[string]string `yaml:"requests"`
	Limits   map[string]string `yaml:"limits"`
}

type volume struct {
	Name                  string `yaml:"name"`
	PersistentVolumeClaim struct {
		ClaimName string `yaml:"claimName"`
	} `yaml:"persistentVolumeClaim"`
}

type mount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
}

type meta struct {
	Name string `yaml:"name"`
}

// The subset of k6.io/v1alpha1 TestRun that the manifest uses.
type testRun struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		Parallelism int  `yaml:"parallelism"`
		Separate    bool `yaml:"separate"`
		Script      struct {
			LocalFile string `yaml:"localFile"`
		} `yaml:"script"`
		Arguments string `yaml:"arguments"`
		Runner    struct {
			Image           string    `yaml:"image"`
			Env             []envVar  `yaml:"env"`
			EnvFrom         []envFrom `yaml:"envFrom"`
			Resources       resources `yaml:"resources"`
			SecurityContext struct {
				FSGroup int `yaml:"fsGroup"`
			} `yaml:"securityContext"`
			Volumes      []volume `yaml:"volumes"`
			VolumeMounts []mount  `yaml:"volumeMounts"`
		} `yaml:"runner"`
	} `yaml:"spec"`
}

type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		BackoffLimit          int `yaml:"backoffLimit"`
		ActiveDeadlineSeconds int `yaml:"activeDeadlineSeconds"`
		Template              struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name      string    `yaml:"name"`
					Image     string    `yaml:"image"`
					Args      []string  `yaml:"args"`
					Env       []envVar  `yaml:"env"`
					EnvFrom   []envFrom `yaml:"envFrom"`
					Resources resources `yaml:"resources"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func decode(t *testing.T, name string, v any) string {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(raw)
}

func envMap(t *testing.T, where string, vars []envVar) map[string]envVar {
	t.Helper()
	m := map[string]envVar{}
	for _, v := range vars {
		if _, dup := m[v.Name]; dup {
			t.Fatalf("%s: %s set twice", where, v.Name)
		}
		m[v.Name] = v
	}
	return m
}

// placeholders are the ${NAME} the runbook fills in with envsubst.
var placeholder = regexp.MustCompile(`\$\{([A-Z0-9_]+)\}`)

func TestStepsAgree(t *testing.T) {
	var tr testRun
	var sj job
	trRaw := decode(t, "testrun.yaml", &tr)
	sjRaw := decode(t, "setup-job.yaml", &sj)
	if tr.APIVersion != "k6.io/v1alpha1" || tr.Kind != "TestRun" {
		t.Fatalf("testrun.yaml is %s %s", tr.APIVersion, tr.Kind)
	}
	if sj.APIVersion != "batch/v1" || sj.Kind != "Job" || len(sj.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("setup-job.yaml is %s %s", sj.APIVersion, sj.Kind)
	}
	setup := sj.Spec.Template.Spec.Containers[0]
	runner := tr.Spec.Runner
	renv := envMap(t, "runner", runner.Env)
	senv := envMap(t, "setup", setup.Env)

	if tr.Spec.Parallelism < 6 {
		t.Errorf("parallelism %d: the issue's distributed run is at least 6 processes", tr.Spec.Parallelism)
	}
	if vus, _ := strconv.Atoi(renv["IM_VUS"].Value); vus < tr.Spec.Parallelism {
		t.Errorf("IM_VUS %q is below parallelism %d: a runner without a VU holds nobody", renv["IM_VUS"].Value, tr.Spec.Parallelism)
	}
	args := strings.Fields(tr.Spec.Arguments)
	for _, want := range []string{"--no-setup", "--no-teardown", "--no-thresholds", "experimental-prometheus-rw"} {
		if !slices.Contains(args, want) {
			t.Errorf("TestRun arguments %q lack %s", tr.Spec.Arguments, want)
		}
	}
	if senv["IM_SETUP_ONLY"].Value != "1" || senv["IM_VUS"].Value != "1" {
		t.Errorf("the setup Job must set IM_SETUP_ONLY=1 and IM_VUS=1")
	}
	if _, ok := renv["IM_SETUP_ONLY"]; ok {
		t.Errorf("the runners must not set IM_SETUP_ONLY")
	}
	// The users the setup registers are the runners' users: same run id
	// (ids derive from it), same size, same target.
	for _, k := range []string{"IM_RUN_ID", "IM_USERS", "IM_TARGET", "IM_API_URL", "IM_WS_URL"} {
		if senv[k].Value == "" || senv[k].Value != renv[k].Value {
			t.Errorf("%s: setup %q, runners %q", k, senv[k].Value, renv[k].Value)
		}
	}
	if setup.Image != runner.Image || !strings.Contains(runner.Image, "${IMBENCH_K6_IMAGE}") {
		t.Errorf("images: setup %q, runners %q", setup.Image, runner.Image)
	}
	if script := setup.Args[len(setup.Args)-1]; script != tr.Spec.Script.LocalFile {
		t.Errorf("setup runs %s, the runners %s", script, tr.Spec.Script.LocalFile)
	}
	if setup.Args[0] != "run" || !slices.Contains(setup.Args, "--no-thresholds") {
		t.Errorf("setup args %v", setup.Args)
	}
	if renv["IM_START_AT"].Value == "" {
		t.Error("the runners need IM_START_AT, their common clock")
	}
	if in := renv["IM_INSTANCE"]; in.ValueFrom == nil || in.ValueFrom.FieldRef.FieldPath != "metadata.name" {
		t.Error("IM_INSTANCE must come from the pod name, so runners push distinct series")
	}
	if renv["K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM"].Value != "true" || !strings.HasSuffix(renv["K6_PROMETHEUS_RW_SERVER_URL"].Value, "/api/v1/write") {
		t.Error("the runners must push to Prometheus' remote-write receiver, trends as native histograms")
	}
	// Secrets come from a Secret, never from the manifest.
	for where, env := range map[string]map[string]envVar{"runner": renv, "setup": senv} {
		if _, ok := env["IM_SECRET"]; ok {
			t.Errorf("%s: IM_SECRET written in the manifest", where)
		}
	}
	if len(runner.EnvFrom) != 1 || len(setup.EnvFrom) != 1 || runner.EnvFrom[0].SecretRef.Name == "" ||
		runner.EnvFrom[0].SecretRef.Name != setup.EnvFrom[0].SecretRef.Name {
		t.Error("runners and setup must read IM_SECRET from the same Secret")
	}
	// Partial summaries land on the shared volume the reader pod mounts.
	if renv["IM_RESULTS_DIR"].Value != "/results" || len(runner.VolumeMounts) != 1 || runner.VolumeMounts[0].MountPath != "/results" ||
		len(runner.Volumes) != 1 || runner.Volumes[0].PersistentVolumeClaim.ClaimName != "imbench-results" {
		t.Error("runners must write their partial summaries to the imbench-results volume at /results")
	}
	if sj.Spec.ActiveDeadlineSeconds <= 0 {
		t.Error("the setup Job needs a deadline: every step stops by itself")
	}
	// Every ${...} is one the runbook tells the user to export.
	book, err := os.ReadFile(filepath.Join("..", "kubernetes.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{trRaw, sjRaw} {
		for _, m := range placeholder.FindAllStringSubmatch(raw, -1) {
			if !strings.Contains(string(book), "export "+m[1]+"=") && !strings.Contains(string(book), " "+m[1]+"=") {
				t.Errorf("${%s} is not set anywhere in runbooks/kubernetes.md", m[1])
			}
		}
	}
}

// The runners read the scenario from the image: the Dockerfile must put
// the scenarios where localFile points, and the file must exist here.
func TestScriptIsInTheImage(t *testing.T) {
	var tr testRun
	decode(t, "testrun.yaml", &tr)
	rel, ok := strings.CutPrefix(tr.Spec.Script.LocalFile, "/work/")
	if !ok {
		t.Fatalf("localFile %s is not under the image's /work", tr.Spec.Script.LocalFile)
	}
	if _, err := os.Stat(filepath.Join("..", "..", rel)); err != nil {
		t.Fatalf("the scenario %s does not exist: %v", rel, err)
	}
	df, err := os.ReadFile(filepath.Join("..", "..", "compose", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(df), "COPY k6/scenarios /work/k6/scenarios") {
		t.Fatal("compose/Dockerfile does not copy the scenarios into the k6 image")
	}
}

func TestReaderAndVolume(t *testing.T) {
	var pvc struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   meta   `yaml:"metadata"`
		Spec       struct {
			AccessModes []string  `yaml:"accessModes"`
			Resources   resources `yaml:"resources"`
		} `yaml:"spec"`
	}
	decode(t, "results-pvc.yaml", &pvc)
	if pvc.Kind != "PersistentVolumeClaim" || pvc.Metadata.Name != "imbench-results" || !slices.Contains(pvc.Spec.AccessModes, "ReadWriteMany") {
		t.Fatalf("results-pvc.yaml: %+v", pvc)
	}
	var pod struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   meta   `yaml:"metadata"`
		Spec       struct {
			RestartPolicy string `yaml:"restartPolicy"`
			Containers    []struct {
				Name         string   `yaml:"name"`
				Image        string   `yaml:"image"`
				Command      []string `yaml:"command"`
				VolumeMounts []mount  `yaml:"volumeMounts"`
			} `yaml:"containers"`
			Volumes []volume `yaml:"volumes"`
		} `yaml:"spec"`
	}
	decode(t, "results-reader.yaml", &pod)
	if pod.Kind != "Pod" || len(pod.Spec.Containers) != 1 || pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "imbench-results" {
		t.Fatalf("results-reader.yaml: %+v", pod)
	}
	if c := pod.Spec.Containers[0]; !regexp.MustCompile(`:\d`).MatchString(c.Image) || len(c.Command) != 2 || c.Command[0] != "sleep" {
		t.Fatalf("the reader must be a pinned image that exits by itself: %+v", c)
	}
}
