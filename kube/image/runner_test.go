package image

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const root = "../.."

// runnerStage is compose/Dockerfile's runner stage, its instructions one
// a line.
func runnerStage(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "compose", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "FROM ") {
			in = strings.HasSuffix(line, " AS runner")
			continue
		}
		if in && line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatal("compose/Dockerfile has no runner stage")
	}
	return out
}

// archive reads back what Write wrote: the config and the layer's entries.
func archive(t *testing.T, b []byte) (cfg Config, entries map[string]*tar.Header, data map[string][]byte) {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], _ = io.ReadAll(tr)
	}
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil || len(manifest) != 1 || len(manifest[0].Layers) != 1 {
		t.Fatalf("manifest.json: %v %s", err, files["manifest.json"])
	}
	var c struct{ Config Config }
	if err := json.Unmarshal(files[manifest[0].Config], &c); err != nil {
		t.Fatal(err)
	}
	entries, data = map[string]*tar.Header{}, map[string][]byte{}
	lr := tar.NewReader(bytes.NewReader(files[manifest[0].Layers[0]]))
	for {
		h, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := "/" + strings.TrimSuffix(h.Name, "/")
		entries[name] = h
		data[name], _ = io.ReadAll(lr)
	}
	return c.Config, entries, data
}

// The image the test cluster runs is the one compose/Dockerfile's runner
// stage builds: its entrypoint, user and working folder, every file its
// COPY lines put there and the user its useradd makes, owning
// /work/results.
func TestRunnerIsTheDockerfilesRunner(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "imbench")
	os.WriteFile(bin, []byte("the imbench binary"), 0o755)
	cfg, files, err := Runner(root, bin)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, "imbench.local/imbench:test", cfg, files); err != nil {
		t.Fatal(err)
	}
	got, entries, data := archive(t, b.Bytes())
	uid := -1
	for _, line := range runnerStage(t) {
		f := strings.Fields(line)
		switch f[0] {
		case "ENTRYPOINT":
			var want []string
			json.Unmarshal([]byte(strings.TrimPrefix(line, "ENTRYPOINT ")), &want)
			if !slices.Equal(got.Entrypoint, want) {
				t.Errorf("entrypoint %q, the Dockerfile's %q", got.Entrypoint, want)
			}
		case "USER":
			if got.User != f[1] {
				t.Errorf("user %q, the Dockerfile's %q", got.User, f[1])
			}
		case "WORKDIR":
			if got.WorkingDir != f[1] {
				t.Errorf("working folder %q, the Dockerfile's %q", got.WorkingDir, f[1])
			}
		case "COPY":
			src, dst := f[len(f)-2], f[len(f)-1]
			want := map[string][]byte{}
			switch {
			case src == "/out/imbench":
				want[dst] = []byte("the imbench binary")
			case src == "/out/work/targets": // the build stage's profile.yaml files
				ps, _ := filepath.Glob(filepath.Join(root, "targets", "*", "profile.yaml"))
				for _, p := range ps {
					rel, _ := filepath.Rel(filepath.Join(root, "targets"), p)
					want[dst+"/"+rel], _ = os.ReadFile(p)
				}
			case !strings.HasPrefix(f[1], "--from"):
				filepath.WalkDir(filepath.Join(root, src), func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						rel, _ := filepath.Rel(filepath.Join(root, src), p)
						want[dst+"/"+filepath.ToSlash(rel)], _ = os.ReadFile(p)
					}
					return nil
				})
			default:
				t.Errorf("a COPY line the test does not know: %s", line)
			}
			if len(want) == 0 {
				t.Errorf("%s copies nothing here", line)
			}
			for p, w := range want {
				if !bytes.Equal(data[p], w) || entries[p] == nil {
					t.Errorf("%s (%s): not in the image as the Dockerfile puts it", p, line)
				}
			}
		case "RUN":
			m := regexp.MustCompile(`useradd --create-home --uid (\d+) (\w+)`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("the runner's RUN line makes no user the test can read: %s", line)
			}
			uid, _ = strconv.Atoi(m[1])
			if !strings.Contains(string(data["/etc/passwd"]), m[2]+":x:"+m[1]+":") || entries["/home/"+m[2]] == nil {
				t.Errorf("user %s (%s) not made as useradd makes it:\n%s", m[2], m[1], data["/etc/passwd"])
			}
			if strings.Contains(line, "chown imbench /work/results") {
				if h := entries["/work/results"]; h == nil || h.Uid != uid || h.Typeflag != tar.TypeDir {
					t.Errorf("/work/results is not imbench's folder: %+v", h)
				}
			}
		}
	}
	if uid != RunnerUID {
		t.Errorf("the Dockerfile's user is %d, the image's %d", uid, RunnerUID)
	}
	if h := entries["/usr/local/bin/imbench"]; h == nil || h.Mode&0o111 == 0 {
		t.Errorf("imbench is not executable in the image: %+v", h)
	}
}
