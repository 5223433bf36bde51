package openim

import (
	"bytes"
	"compress/gzip"
	"io"
	"sync"
)

// A gzip.Writer costs about a megabyte to make, and every push and answer
// to a gzip client is compressed: writers and readers are reused. A reset
// writer writes what a new one would, byte for byte.
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
	gzipReaders sync.Pool // *gzip.Reader; none until the first is made
	gzipBufs    = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// gzipped returns b compressed as gzip.NewWriter at the default level
// compresses it, in a slice of its own.
func gzipped(b []byte) ([]byte, error) {
	buf := gzipBufs.Get().(*bytes.Buffer)
	defer gzipBufs.Put(buf)
	buf.Reset()
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// gunzipped returns the content of a gzip stream.
func gunzipped(b []byte) ([]byte, error) {
	var (
		zr  *gzip.Reader
		err error
	)
	if r, ok := gzipReaders.Get().(*gzip.Reader); ok {
		zr, err = r, r.Reset(bytes.NewReader(b))
	} else {
		zr, err = gzip.NewReader(bytes.NewReader(b))
	}
	if err != nil {
		return nil, err
	}
	defer gzipReaders.Put(zr)
	return io.ReadAll(zr)
}
