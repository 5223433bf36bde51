package kube

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A part summary printed into a log among other lines comes back whole;
// one whose lines are not all there is named, not half read.
func TestFilesThroughALog(t *testing.T) {
	dir := t.TempDir()
	noise := make([]byte, 20000) // what gzip does not shrink away
	rand.NewChaCha8([32]byte{1}).Read(noise)
	big := append(bytes.Repeat([]byte(`{"x": "a part summary's text"}`), 5000), noise...)
	os.WriteFile(filepath.Join(dir, "summary-0:1_4.json"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "setup.json"), []byte("{}\n"), 0o644)
	var log bytes.Buffer
	log.WriteString("imbench: a progress line\n")
	if err := PrintFiles(&log, dir, []string{"summary-0:1_4.json", "setup.json", "absent.json"}); err != nil {
		t.Fatal(err)
	}
	log.WriteString("imbench: the last line\n")
	if n := strings.Count(log.String(), filePrefix); n < 3 {
		t.Fatalf("%d file lines: the test wants a file over several lines", n)
	}
	files, err := ReadFiles(bytes.NewReader(log.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files["summary-0:1_4.json"], big) || string(files["setup.json"]) != "{}\n" || len(files) != 2 {
		t.Fatalf("read back %d files", len(files))
	}
	lines := strings.Split(log.String(), "\n")
	cut := strings.Join(append(lines[:2:2], lines[3:]...), "\n") // the part's 2nd line lost
	if _, err := ReadFiles(strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), "summary-0:1_4.json: line 2 of") {
		t.Fatalf("a file with a line missing: %v", err)
	}
}
