package main

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
)

// No admin secret or user token reaches what a run leaves behind: the
// summary, the reports, the series, the k6 log, what the CLI printed. One
// run per protocol, each against the same target and its secret.
func TestSecretsStayOutOfOutputs(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	results := t.TempDir()
	var printed strings.Builder
	runs := map[string]string{} // run id → scenario
	for _, sc := range []struct{ name, scale string }{{"openim/test1", "0.05"}, {"wukongim/ordering", "0.01"}, {"wildfire/group100", "0.01"}} {
		r := imbench(t, tg.env(), "run", "-scenario", sc.name, "-scale", sc.scale, "-results", results)
		if r.code != 0 {
			t.Fatalf("%s exited %d\n%s\n%s", sc.name, r.code, r.stdout, r.stderr)
		}
		printed.WriteString(r.stdout + r.stderr)
		raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		runs[s.RunID] = sc.name
	}
	secrets := map[string]string{tg.secret: "the admin secret"}
	for id, name := range runs {
		if name != "wukongim/ordering" {
			continue
		}
		// WuKongIM's user tokens derive from the run (load/wukongim).
		for u := 0; u < 2; u++ {
			sum := md5.Sum([]byte(fmt.Sprintf("%s|%s_u%d", id, id, u)))
			secrets[hex.EncodeToString(sum[:])] = fmt.Sprintf("user %d's WuKongIM token", u)
		}
	}
	check := func(where, text string) {
		for s, what := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %s", where, what)
			}
		}
	}
	check("the CLI's output", printed.String())
	files := 0
	filepath.WalkDir(results, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil // the latest link
		}
		files++
		check(path, string(raw))
		return nil
	})
	if files < 3*3 {
		t.Fatalf("only %d files in the results", files)
	}
}
