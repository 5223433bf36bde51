// Package compose holds imbench's Docker stack. No Docker engine runs where
// imbench is built and tested, so this test validates everything about it
// that can be checked without one.
package compose

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/imbench/imbench/dashboards"
)

type service struct {
	Image       string                                        `yaml:"image"`
	Build       *struct{ Context, Dockerfile, Target string } `yaml:"build"`
	Command     []string                                      `yaml:"command"`
	Environment map[string]string                             `yaml:"environment"`
	Volumes     []string                                      `yaml:"volumes"`
	Ports       []string                                      `yaml:"ports"`
	Profiles    []string                                      `yaml:"profiles"`
	Labels      map[string]string                             `yaml:"labels"`
	Networks    map[string]struct {
		Aliases []string `yaml:"aliases"`
	} `yaml:"networks"`
	// The rest of the compose spec this file uses; anything else is a typo.
	Restart     string   `yaml:"restart"`
	Pid         string   `yaml:"pid"`
	Privileged  bool     `yaml:"privileged"`
	Devices     []string `yaml:"devices"`
	User        string   `yaml:"user"`
	Init        bool     `yaml:"init"`
	DependsOn   []string `yaml:"depends_on"`
	WorkingDir  string   `yaml:"working_dir"`
	Healthcheck *struct {
		Test     []string `yaml:"test"`
		Interval string   `yaml:"interval"`
		Timeout  string   `yaml:"timeout"`
		Retries  int      `yaml:"retries"`
	} `yaml:"healthcheck"`
}

type composeFile struct {
	Name     string              `yaml:"name"`
	Services map[string]service  `yaml:"services"`
	Volumes  map[string]struct{} `yaml:"volumes"`
}

func load(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

func TestImagesArePinned(t *testing.T) {
	pinned := regexp.MustCompile(`^[a-z0-9./-]+:([A-Za-z0-9._-]+)$`)
	for name, s := range load(t).Services {
		m := pinned.FindStringSubmatch(s.Image)
		switch {
		case s.Build != nil:
			if s.Image == "" || !strings.HasPrefix(s.Image, "imbench/") {
				t.Errorf("%s: a built image needs an imbench/ name, has %q", name, s.Image)
			}
		case m == nil || m[1] == "latest" || m[1] == "main" || m[1] == "master":
			t.Errorf("%s: image %q is not pinned to a version tag", name, s.Image)
		}
	}
	// The Dockerfile's base images too.
	raw, _ := os.ReadFile("Dockerfile")
	for _, from := range regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(string(raw), -1) {
		if !pinned.MatchString(from[1]) || strings.HasSuffix(from[1], ":latest") {
			t.Errorf("Dockerfile: base image %q is not pinned", from[1])
		}
	}
}

func TestPortsBindLoopbackOnly(t *testing.T) {
	for name, s := range load(t).Services {
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s: port %q is published beyond 127.0.0.1", name, p)
			}
		}
	}
}

func TestMountedPathsExist(t *testing.T) {
	c := load(t)
	for name, s := range c.Services {
		for _, v := range s.Volumes {
			src := strings.SplitN(v, ":", 2)[0]
			if strings.HasPrefix(v, "${") {
				// A host path from the environment: required, or with a
				// host path as its default.
				end := strings.Index(v, "}")
				m := regexp.MustCompile(`^\$\{[A-Z_]+(:\?[^}]+|:-/[^}]*)\}$`).FindStringSubmatch(v[:end+1])
				if end < 0 || m == nil || !strings.HasPrefix(v[end+1:], ":/") {
					t.Errorf("%s: volume %q: an interpolated host path must be ${VAR:?message} or ${VAR:-/host/path}, mounted at an absolute path", name, v)
				}
				continue
			}
			switch {
			case src == "../results":
				// the runs' output, created by `imbench run` before the runner mounts it
			case strings.HasPrefix(src, "."):
				if _, err := os.Stat(src); err != nil {
					t.Errorf("%s: mounts %s, which does not exist", name, src)
				}
			case strings.HasPrefix(src, "/"):
				// host paths (/proc, /sys, …) for the exporters
			default:
				if _, ok := c.Volumes[src]; !ok {
					t.Errorf("%s: named volume %q is not declared", name, src)
				}
			}
		}
		if s.Build != nil {
			if _, err := os.Stat(filepath.Join(s.Build.Context, s.Build.Dockerfile)); err != nil {
				t.Errorf("%s: build file: %v", name, err)
			}
		}
	}
}

// Secrets come from the environment: no defaults.
func TestSecretsHaveNoDefaults(t *testing.T) {
	secret := regexp.MustCompile(`(?i)(PASSWORD|SECRET)`)
	for name, s := range load(t).Services {
		for k, v := range s.Environment {
			if !secret.MatchString(k) {
				continue
			}
			if !regexp.MustCompile(`^\$\{[A-Z_]+:\?[^}]+\}$`).MatchString(v) {
				t.Errorf("%s: %s=%q must be ${VAR:?message}, required from the environment", name, k, v)
			}
		}
		for _, arg := range s.Command {
			if strings.Contains(arg, "${") && !strings.Contains(arg, ":?") {
				t.Errorf("%s: command interpolates %q with a default", name, arg)
			}
		}
	}
}

func TestProfilesBringWhatTheyPromise(t *testing.T) {
	c := load(t)
	byProfile := map[string][]string{}
	for name, s := range c.Services {
		for _, p := range s.Profiles {
			byProfile[p] = append(byProfile[p], name)
		}
		if len(s.Profiles) > 0 && s.Labels["imbench.component"] == "" {
			t.Errorf("%s: no imbench.component label (cAdvisor's fallback needs it)", name)
		}
	}
	want := map[string][]string{
		"reference": {"imbench-target"},
		"openim":    {"etcd", "kafka", "minio", "mongo", "openim-server", "redis"},
		"wukongim":  {"wukongim"},
		"wildfire":  {"wildfire", "wildfire-exporter"},
		"runner":    {"k6"},
	}
	for p, names := range want {
		got := byProfile[p]
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(names, ",") {
			t.Errorf("profile %s has %v, want %v", p, got, names)
		}
	}
	for _, svc := range []string{"prometheus", "grafana", "loki", "node-exporter", "cadvisor", "process-exporter"} {
		if s, ok := c.Services[svc]; !ok || len(s.Profiles) != 0 {
			t.Errorf("%s must run in every profile", svc)
		}
	}
	for _, svc := range []string{"imbench-target", "openim-server"} {
		if !slices.Contains(c.Services[svc].Networks["default"].Aliases, "im-api") {
			t.Errorf("%s must answer as im-api, which Prometheus and k6 use", svc)
		}
	}
	for _, svc := range []string{"imbench-target", "wukongim"} {
		if !slices.Contains(c.Services[svc].Networks["default"].Aliases, "wk") {
			t.Errorf("%s must answer as wk, which Prometheus and k6 use for WuKongIM", svc)
		}
	}
	for _, svc := range []string{"imbench-target", "wildfire"} {
		if !slices.Contains(c.Services[svc].Networks["default"].Aliases, "wf") {
			t.Errorf("%s must answer as wf, which k6 (and the exporter) use for Wildfire", svc)
		}
	}
	if !strings.Contains(strings.Join(c.Services["process-exporter"].Volumes, " "), "../exporters/process-exporter.yml") {
		t.Error("process-exporter must use the generated exporters/process-exporter.yml")
	}
}

type promConfig struct {
	RuleFiles     []string `yaml:"rule_files"`
	ScrapeConfigs []struct {
		JobName string `yaml:"job_name"`
	} `yaml:"scrape_configs"`
}

func jobs(t *testing.T, path string) []string {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c promConfig
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, j := range c.ScrapeConfigs {
		out = append(out, j.JobName)
	}
	sort.Strings(out)
	return out
}

// Compose scrapes what native scrapes, plus cAdvisor.
func TestScrapeJobsMatchNative(t *testing.T) {
	native := jobs(t, "../prometheus/prometheus.yml")
	composed := jobs(t, "prometheus.yml")
	want := append(append([]string(nil), native...), "cadvisor")
	sort.Strings(want)
	if strings.Join(composed, ",") != strings.Join(want, ",") {
		t.Fatalf("compose jobs %v, native jobs %v (+cadvisor)", composed, native)
	}
}

// compose/loki.yml is loki/loki.yml with container addresses and paths.
func TestLokiConfigsAreTwins(t *testing.T) {
	native, _ := os.ReadFile("../loki/loki.yml")
	composed, _ := os.ReadFile("loki.yml")
	strip := func(b []byte) string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			l = strings.ReplaceAll(l, "0.0.0.0", "127.0.0.1")
			l = strings.ReplaceAll(l, "/loki", ".run/loki")
			l = strings.ReplaceAll(l, ".run.run/loki", ".run/loki")
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if strip(native) != strip(composed) {
		t.Fatal("compose/loki.yml differs from loki/loki.yml beyond addresses and paths")
	}
}

// Grafana's provisioning gives the data sources the uids the dashboards use,
// and loads the dashboards from where compose mounts them.
func TestGrafanaProvisioningFitsTheDashboards(t *testing.T) {
	raw, err := os.ReadFile("../dashboards/provisioning/datasources/datasources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ds struct {
		Datasources []struct{ Name, Type, UID, URL string } `yaml:"datasources"`
	}
	if err := yaml.Unmarshal(raw, &ds); err != nil {
		t.Fatal(err)
	}
	uids := map[string]string{}
	for _, d := range ds.Datasources {
		uids[d.UID] = d.Type
	}
	if uids[dashboards.PromUID] != "prometheus" || uids[dashboards.LokiUID] != "loki" {
		t.Fatalf("data sources %v do not provide the dashboards' uids", uids)
	}
	raw, _ = os.ReadFile("../dashboards/provisioning/dashboards/imbench.yaml")
	var prov struct {
		Providers []struct {
			Options struct{ Path string } `yaml:"options"`
		} `yaml:"providers"`
	}
	yaml.Unmarshal(raw, &prov)
	mounts := strings.Join(load(t).Services["grafana"].Volumes, " ")
	if len(prov.Providers) != 1 || !strings.Contains(mounts, "../dashboards:"+prov.Providers[0].Options.Path) {
		t.Fatalf("dashboards provider path %+v is not where compose mounts dashboards/ (%s)", prov.Providers, mounts)
	}
	for name := range dashboards.Build() {
		if _, err := os.Stat(filepath.Join("..", "dashboards", name)); err != nil {
			t.Errorf("dashboard %s is not generated", name)
		}
	}
}
