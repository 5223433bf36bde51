package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/imbench/imbench/dashboards"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/kube"
)

// cmdGenerate writes the files made from code: the dashboards' JSON,
// process-exporter's groups, summary.json's schema and the Kubernetes runbook's manifests. Tests fail when the committed ones drift.
func cmdGenerate(args []string) error {
	profiles, err := profile.LoadShipped("targets") // a local override is this machine's, not the repository's
	if err != nil {
		return err
	}
	pe, err := profile.ProcessExporterConfig(profiles)
	if err != nil {
		return err
	}
	files := map[string][]byte{filepath.Join("exporters", "process-exporter.yml"): pe}
	docs, err := summary.FieldDocs(filepath.Join("internal", "summary"))
	if err != nil {
		return err
	}
	if files[summary.SchemaFile], err = summary.Schema(docs); err != nil {
		return err
	}
	ts, err := summary.TypeScript(files[summary.SchemaFile])
	if err != nil {
		return err
	}
	dtsFile := filepath.Join("load", "imbench.d.ts")
	dts, err := os.ReadFile(dtsFile)
	if err != nil {
		return err
	}
	spliced, err := summary.SpliceTypeScript(string(dts), ts)
	if err != nil {
		return err
	}
	files[dtsFile] = []byte(spliced)
	for name, d := range dashboards.Build() {
		b, err := dashboards.Marshal(d)
		if err != nil {
			return err
		}
		files[filepath.Join("dashboards", name)] = b
	}
	manifests, err := kube.RunbookManifests()
	if err != nil {
		return err
	}
	for name, b := range manifests {
		files[filepath.Join(kube.RunbookDir, name)] = b
	}
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", path)
	}
	return nil
}
