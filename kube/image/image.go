// Package image writes container images as `docker save` archives without
// Docker or a registry: one layer of the files given, a config, a
// manifest. `ctr images import` loads such an archive into a node's
// runtime. Runner is the image compose/Dockerfile's runner stage builds,
// made from imbench's static binary.
package image

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"
)

// File is one entry of the image's layer.
type File struct {
	Path     string // absolute, in the image
	Mode     int64  // permission bits
	Dir      bool
	Data     []byte
	UID, GID int
}

// Config is what the image runs, as a Dockerfile's ENTRYPOINT, CMD, USER,
// WORKDIR and ENV say it.
type Config struct {
	Entrypoint []string `json:"Entrypoint,omitempty"`
	Cmd        []string `json:"Cmd,omitempty"`
	User       string   `json:"User,omitempty"`
	WorkingDir string   `json:"WorkingDir,omitempty"`
	Env        []string `json:"Env,omitempty"`
}

// epoch dates every file and the image, so that the same inputs make the
// same archive.
var epoch = time.Unix(0, 0).UTC()

// Write writes the image, tagged tag (name:version), as a docker archive.
func Write(w io.Writer, tag string, cfg Config, files []File) error {
	layer, err := layerTar(files)
	if err != nil {
		return err
	}
	layerID := digest(layer)
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH, "os": "linux", "created": epoch.Format(time.RFC3339),
		"config": cfg,
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + layerID}},
	})
	if err != nil {
		return err
	}
	configName := digest(config) + ".json"
	manifest, _ := json.Marshal([]map[string]any{{"Config": configName, "RepoTags": []string{tag}, "Layers": []string{layerID + "/layer.tar"}}})
	tw := tar.NewWriter(w)
	for _, f := range []struct {
		name string
		data []byte
	}{{layerID + "/layer.tar", layer}, {configName, config}, {"manifest.json", manifest}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: epoch, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	return tw.Close()
}

// layerTar is the files as a tar, each folder above them included once.
func layerTar(files []File) ([]byte, error) {
	all := map[string]File{}
	for _, f := range files {
		p := strings.TrimPrefix(path.Clean(f.Path), "/")
		f.Path = p
		all[p] = f
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := all[d]; !ok {
				all[d] = File{Path: d, Dir: true, Mode: 0o755}
			}
		}
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		f := all[n]
		h := &tar.Header{Name: n, Mode: f.Mode, Uid: f.UID, Gid: f.GID, ModTime: epoch, Typeflag: tar.TypeReg, Size: int64(len(f.Data))}
		if f.Dir {
			h.Name, h.Typeflag, h.Size = n+"/", tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if !f.Dir {
			if _, err := tw.Write(f.Data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
