package image

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RunnerUID is the runner image's imbench user (compose/Dockerfile's
// useradd --uid).
const RunnerUID = 10001

// debianPath is the PATH of Debian's images, which the runner stage is
// built on.
const debianPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Runner is compose/Dockerfile's runner stage made from files here: the
// static imbench at /usr/local/bin, the target profiles and the scenarios
// under /work, the imbench user, /work/results its own; entrypoint imbench,
// working in /work. root is the repository; bin, imbench's binary.
func Runner(root, bin string) (Config, []File, error) {
	exe, err := os.ReadFile(bin)
	if err != nil {
		return Config{}, nil, err
	}
	files := []File{{Path: "/usr/local/bin/imbench", Mode: 0o755, Data: exe}}
	profiles, err := filepath.Glob(filepath.Join(root, "targets", "*", "profile.yaml"))
	if err != nil {
		return Config{}, nil, err
	}
	for _, p := range profiles {
		rel, _ := filepath.Rel(root, p)
		raw, err := os.ReadFile(p)
		if err != nil {
			return Config{}, nil, err
		}
		files = append(files, File{Path: "/work/" + filepath.ToSlash(rel), Mode: 0o644, Data: raw})
	}
	scenarios := filepath.Join(root, "load", "scenarios")
	err = filepath.WalkDir(scenarios, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		raw, err := os.ReadFile(p)
		files = append(files, File{Path: "/work/" + filepath.ToSlash(rel), Mode: 0o644, Data: raw})
		return err
	})
	if err != nil {
		return Config{}, nil, err
	}
	files = append(files, users("imbench", RunnerUID)...)
	files = append(files,
		File{Path: "/work/results", Dir: true, Mode: 0o755, UID: RunnerUID, GID: RunnerUID},
		File{Path: "/tmp", Dir: true, Mode: 0o1777})
	return Config{Entrypoint: []string{"imbench"}, User: "imbench", WorkingDir: "/work", Env: []string{debianPath}}, files, nil
}

// Pause is a pod sandbox's image: the binary given, which waits for its
// end (cmd/imbench-cluster's pause).
func Pause(bin string) (Config, []File, error) {
	exe, err := os.ReadFile(bin)
	if err != nil {
		return Config{}, nil, err
	}
	return Config{Entrypoint: []string{"/pause", "pause"}, User: "65535:65535"}, []File{{Path: "/pause", Mode: 0o755, Data: exe}}, nil
}

// users are /etc/passwd and /etc/group with root and one user, and the
// user's home, as useradd --create-home leaves them.
func users(name string, id int) []File {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/bin/sh\n%s:x:%d:%d::/home/%s:/bin/sh\n", name, id, id, name)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", name, id)
	return []File{
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte(passwd)},
		{Path: "/etc/group", Mode: 0o644, Data: []byte(group)},
		{Path: "/home/" + name, Dir: true, Mode: 0o755, UID: id, GID: id},
	}
}
