package profile

import (
	"os"
	"testing"
)

func TestProfilesLoad(t *testing.T) {
	ps, err := Load("../../targets")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"reference", "openim"} {
		p, ok := ps[name]
		if !ok || p.System != "openim" || p.Endpoints["api"] == "" || p.Endpoints["ws"] == "" || len(p.Processes) == 0 {
			t.Fatalf("profile %s: %+v", name, p)
		}
	}
}

// exporters/process-exporter.yml is generated from the profiles.
func TestProcessExporterConfigIsGenerated(t *testing.T) {
	ps, err := Load("../../targets")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ProcessExporterConfig(ps)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../exporters/process-exporter.yml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("exporters/process-exporter.yml drifted from targets/*/profile.yaml: run make generate\n--- generated\n%s", want)
	}
}
