package prometheus

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
)

// The exporters' jobs: every other job scrapes a system under test. An
// exporter job added later belongs here.
var exporterJobs = map[string]bool{"node": true, "process": true, "cadvisor": true}

type scrapeConfig struct {
	JobName       string `yaml:"job_name"`
	FileSDConfigs []struct {
		Files []string `yaml:"files"`
	} `yaml:"file_sd_configs"`
	DNSSDConfigs []struct {
		Names []string `yaml:"names"`
		Port  int      `yaml:"port"`
	} `yaml:"dns_sd_configs"`
	StaticConfigs []struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"static_configs"`
	RelabelConfigs []struct {
		SourceLabels []string `yaml:"source_labels"`
		TargetLabel  string   `yaml:"target_label"`
		Replacement  string   `yaml:"replacement"`
		Action       string   `yaml:"action"`
	} `yaml:"relabel_configs"`
}

// Every job of a system under test sets `target` (a profile's name under
// targets/) and `system` (that profile's system) at relabel time, natively
// and in compose: the alerts select on them. Exporters set neither.
func TestSystemsUnderTestCarryTargetAndSystem(t *testing.T) {
	systems := map[string]string{} // profile name → system
	profiles, _ := filepath.Glob("../targets/*/profile.yaml")
	for _, f := range profiles {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Name, System string }
		if err := yaml.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		systems[p.Name] = p.System
	}
	if len(systems) == 0 {
		t.Fatal("no target profiles in ../targets")
	}
	for _, path := range []string{"prometheus.yml", "../compose/prometheus.yml"} {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			ScrapeConfigs []scrapeConfig `yaml:"scrape_configs"`
		}
		if err := yaml.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		suts := 0
		for _, j := range c.ScrapeConfigs {
			set := map[string]string{}
			for _, r := range j.RelabelConfigs {
				if len(r.SourceLabels) == 0 && (r.Action == "" || r.Action == "replace") && r.TargetLabel != "" {
					set[r.TargetLabel] = r.Replacement
				}
			}
			for _, sc := range j.StaticConfigs {
				for _, l := range []string{"target", "system"} {
					if _, ok := sc.Labels[l]; ok {
						t.Errorf("%s: job %s sets %s as a static label; set it in relabel_configs", path, j.JobName, l)
					}
				}
			}
			if exporterJobs[j.JobName] {
				if set["target"] != "" || set["system"] != "" {
					t.Errorf("%s: exporter job %s sets target or system: ImbenchTargetDown would count it", path, j.JobName)
				}
				continue
			}
			suts++
			system, ok := systems[set["target"]]
			switch {
			case !ok:
				t.Errorf("%s: job %s sets target %q, not a profile under targets/", path, j.JobName, set["target"])
			case set["system"] != system:
				t.Errorf("%s: job %s sets system %q, profile %s says %q", path, j.JobName, set["system"], set["target"], system)
			}
		}
		if suts == 0 {
			t.Errorf("%s: no job scrapes a system under test", path)
		}
	}
}

type testProfile struct {
	Name, System, Discovery string
	Metrics                 []string
	FixedMetricsEnv         string `yaml:"fixed_metrics_env"`
}

func loadProfiles(t *testing.T) map[string]testProfile {
	t.Helper()
	out := map[string]testProfile{}
	files, _ := filepath.Glob("../targets/*/profile.yaml")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p testProfile
		if err := yaml.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[p.Name] = p
	}
	if len(out) == 0 {
		t.Fatal("no target profiles in ../targets")
	}
	return out
}

func loadJobs(t *testing.T, path string) []scrapeConfig {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ScrapeConfigs []scrapeConfig `yaml:"scrape_configs"`
	}
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c.ScrapeConfigs
}

func relabelTarget(j scrapeConfig) string {
	for _, r := range j.RelabelConfigs {
		if r.TargetLabel == "target" && len(r.SourceLabels) == 0 {
			return r.Replacement
		}
	}
	return ""
}

// cmd/imbench writes .run/prometheus/<profile>-targets.json from the
// `metrics` of a profile without discovery of its own (the reference
// target is static), or from the fixed addresses its discovery leaves out:
// the native config must have a job reading each such file and setting
// that profile as target, and read no other such file.
func TestFileSDJobsMatchProfiles(t *testing.T) {
	profiles := loadProfiles(t)
	read := map[string]string{} // file → the target its job sets
	for _, j := range loadJobs(t, "prometheus.yml") {
		for _, sd := range j.FileSDConfigs {
			for _, f := range sd.Files {
				read[f] = relabelTarget(j)
			}
		}
	}
	for name, p := range profiles {
		if !stack.ScrapesProfile(name, profile.Profile{Discovery: p.Discovery, Metrics: p.Metrics, FixedMetricsEnv: p.FixedMetricsEnv}) {
			continue
		}
		f := name + "-targets.json"
		target, ok := read[f]
		switch {
		case !ok:
			t.Errorf("profile %s lists metrics, but no job reads %s", name, f)
		case target != name:
			t.Errorf("the job reading %s sets target %q, want %q", f, target, name)
		}
		delete(read, f)
	}
	for f := range read {
		t.Errorf("a job reads %s, which no profile's metrics produce", f)
	}
}

// Every real server a profile describes is scraped in compose too.
func TestComposeScrapesEveryProfile(t *testing.T) {
	targets := map[string]bool{}
	for _, j := range loadJobs(t, "../compose/prometheus.yml") {
		targets[relabelTarget(j)] = true
	}
	for name, p := range loadProfiles(t) {
		if len(p.Metrics) == 0 && p.Discovery == "" {
			continue
		}
		if !targets[name] {
			t.Errorf("compose/prometheus.yml has no job for profile %s", name)
		}
	}
}

// Wildfire has no metrics endpoint: its job scrapes imbench's exporter,
// on the port the profile gives it, natively and in compose.
func TestWildfireScrapesTheExporter(t *testing.T) {
	p, ok := loadProfiles(t)["wildfire"]
	if !ok {
		t.Fatal("no targets/wildfire/profile.yaml")
	}
	if len(p.Metrics) == 0 || !strings.HasSuffix(p.Metrics[0], ":12080/metrics") {
		t.Errorf("the wildfire profile's first metrics address %v is not the exporter's (port 12080)", p.Metrics)
	}
	found := false
	for _, j := range loadJobs(t, "../compose/prometheus.yml") {
		if j.JobName != "wildfire" {
			continue
		}
		for _, sd := range j.DNSSDConfigs {
			if slices.Contains(sd.Names, "wildfire-exporter") && sd.Port == 12080 {
				found = true
			}
		}
	}
	if !found {
		t.Error("compose's wildfire job does not scrape wildfire-exporter:12080")
	}
}
