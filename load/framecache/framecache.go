// Package framecache keeps what was decoded from the frames seen lately,
// by their bytes. A group message reaches every member's connection as
// the same bytes (OpenIM's gateway encodes it once per envelope and
// compression): the first receiver decodes it, and the others, finding the
// very same bytes here, take the result. A frame that differs by a single
// byte is another key or fails the comparison, and is decoded afresh.
package framecache

import (
	"bytes"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Cache holds the last 64 frames of each of its 16 shards; the zero value
// is ready.
type Cache[T any] struct {
	shards [16]shard[T]
}

type shard[T any] struct {
	mu   sync.Mutex
	m    map[uint64]*entry[T]
	ring [64]uint64 // insertion order, for eviction
	next int
}

type entry[T any] struct {
	frame []byte
	v     T
}

// Key is frame's key.
func Key(frame []byte) uint64 {
	k := xxhash.Sum64(frame)
	if k == 0 {
		k = 1 // 0 marks an empty ring slot
	}
	return k
}

// Get returns what was put for these very bytes.
func (c *Cache[T]) Get(key uint64, frame []byte) (v T, ok bool) {
	s := &c.shards[key%uint64(len(c.shards))]
	s.mu.Lock()
	e := s.m[key]
	s.mu.Unlock()
	if e == nil || !bytes.Equal(e.frame, frame) {
		return v, false
	}
	return e.v, true
}

// Put keeps v for frame (a copy of it), evicting the shard's oldest.
func (c *Cache[T]) Put(key uint64, frame []byte, v T) {
	s := &c.shards[key%uint64(len(c.shards))]
	e := &entry[T]{frame: bytes.Clone(frame), v: v}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[uint64]*entry[T], len(s.ring))
	}
	if old := s.ring[s.next]; old != 0 {
		delete(s.m, old)
	}
	s.m[key] = e
	s.ring[s.next] = key
	s.next = (s.next + 1) % len(s.ring)
}
