package kube

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A pod's files vanish with it, and a cluster need not offer a volume that
// several nodes write: a pod prints the files its run wrote as lines of its
// log, and the run reads them back from there.
//
//	imbench-file <name> <i>/<n> <base64 of a gzip chunk>
const (
	filePrefix = "imbench-file "
	chunkChars = 3000 // well under the 16 KiB a runtime splits a log line at
)

// PrintFiles writes each named file of dir to w as file lines; a name
// with no file is skipped.
func PrintFiles(w io.Writer, dir string, names []string) error {
	for _, name := range names {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(raw)
		zw.Close()
		text := base64.StdEncoding.EncodeToString(z.Bytes())
		n := (len(text) + chunkChars - 1) / chunkChars
		for i := 0; i < n; i++ {
			chunk := text[i*chunkChars : min(len(text), (i+1)*chunkChars)]
			if _, err := fmt.Fprintf(w, "%s%s %d/%d %s\n", filePrefix, name, i+1, n, chunk); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadFiles finds the files a log holds. A file whose lines are not all
// there (the pod ended while printing it) is an error naming it.
func ReadFiles(log io.Reader) (map[string][]byte, error) {
	type parts struct {
		n      int
		chunks map[int]string
	}
	found := map[string]*parts{}
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		at := strings.Index(line, filePrefix)
		if at < 0 {
			continue
		}
		f := strings.Fields(line[at+len(filePrefix):])
		if len(f) != 3 {
			continue
		}
		a, b, _ := strings.Cut(f[1], "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || i < 1 || i > n {
			continue
		}
		p := found[f[0]]
		if p == nil || p.n != n {
			p = &parts{n: n, chunks: map[int]string{}}
			found[f[0]] = p
		}
		p.chunks[i] = f[2]
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name, p := range found {
		var text strings.Builder
		for i := 1; i <= p.n; i++ {
			c, ok := p.chunks[i]
			if !ok {
				return out, fmt.Errorf("%s: line %d of %d is missing from the log", name, i, p.n)
			}
			text.WriteString(c)
		}
		z, err := base64.StdEncoding.DecodeString(text.String())
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = raw
	}
	return out, nil
}
