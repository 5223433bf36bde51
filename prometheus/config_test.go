package prometheus

import (
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// The exporters' jobs: every other job scrapes a system under test. An
// exporter job added later belongs here.
var exporterJobs = map[string]bool{"node": true, "process": true, "cadvisor": true}

type scrapeConfig struct {
	JobName       string `yaml:"job_name"`
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
