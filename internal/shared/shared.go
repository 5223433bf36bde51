// Package shared locates ../shared, the steering material beside the project
// checkout: seeds, protocol references and the wire vectors tests load.
package shared

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir returns the shared folder: $IMBENCH_SHARED, or ../shared next to the
// module root (the folder holding go.mod).
func Dir() (string, error) {
	if d := os.Getenv("IMBENCH_SHARED"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(filepath.Dir(d), "shared")
			if _, err := os.Stat(s); err != nil {
				return "", fmt.Errorf("shared material not found at %s (clone imbench beside shared/, or set IMBENCH_SHARED)", s)
			}
			return s, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
}

// Vectors reads a vectors file: one "NAME VALUE" per line, '#' comments.
func Vectors(name string) (map[string]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "protocols", "vectors", name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("%s: malformed line %q", name, line)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, sc.Err()
}
