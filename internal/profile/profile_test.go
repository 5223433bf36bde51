package profile

import (
	"os"
	"path/filepath"
	"strings"
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
	ps, err := LoadShipped("../../targets")
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

// Every comm a shipped profile names fits what Linux keeps of a process's
// name: a longer one would match nothing, silently.
func TestCommNamesFitTheKernel(t *testing.T) {
	ps, err := LoadShipped("../../targets")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		for _, pr := range p.Processes {
			for _, c := range pr.Comm {
				if len(c) > MaxComm {
					t.Errorf("profile %s, group %s: comm %q is longer than %d", p.Name, pr.Group, c, MaxComm)
				}
			}
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "profile.yaml"), []byte("name: x\nsystem: openim\nprocesses:\n  - group: openim-msggateway\n    comm: [openim-msggatewa]\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `Linux keeps 15 in /proc/<pid>/comm ("openim-msggatew")`) {
		t.Fatalf("a 16-character comm: %v", err)
	}
}

// A local override replaces a shipped group (here: what stands in for
// MongoDB) and adds groups, and says what the group counts; the shipped
// profile and the generated exporter config ignore it.
func TestLocalOverride(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "profile.yaml"), []byte("name: x\nsystem: openim\nprocesses:\n  - group: mongo\n    comm: [mongod]\n  - group: redis\n    comm: [redis-server]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x", LocalFile), []byte("processes:\n  - group: mongo\n    comm: [ferretdb, postgres]\n    note: FerretDB and PostgreSQL stand in for MongoDB\n  - group: extra\n    comm: [extra]\n"), 0o644)
	ps, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := ps["x"].Processes
	if len(got) != 3 || got[0].Group != "mongo" || strings.Join(got[0].Comm, ",") != "ferretdb,postgres" || got[0].Note == "" || got[2].Group != "extra" {
		t.Fatalf("merged %+v", got)
	}
	shipped, _ := LoadShipped(dir)
	if g := shipped["x"].Processes; len(g) != 2 || g[0].Comm[0] != "mongod" {
		t.Fatalf("shipped %+v", g)
	}
	os.WriteFile(filepath.Join(dir, "x", LocalFile), []byte("processes:\n  - group: mongo\n    comms: [x]\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), LocalFile) {
		t.Fatalf("a misspelt override: %v", err)
	}
}
