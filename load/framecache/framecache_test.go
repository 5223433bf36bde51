package framecache

import (
	"fmt"
	"testing"
)

func TestCacheAnswersOnlyForTheSameBytes(t *testing.T) {
	var c Cache[int]
	frame := []byte("push 1")
	k := Key(frame)
	if _, ok := c.Get(k, frame); ok {
		t.Fatal("an empty cache had the frame")
	}
	c.Put(k, frame, 7)
	frame[0] = 'P' // the cache keeps its own copy
	if v, ok := c.Get(k, []byte("push 1")); !ok || v != 7 {
		t.Fatalf("Get = %d, %v; want 7, true", v, ok)
	}
	if _, ok := c.Get(k, []byte("push 2")); ok {
		t.Error("other bytes under the same key were taken for the frame")
	}
}

func TestCacheForgetsTheOldestOfAShard(t *testing.T) {
	var c Cache[int]
	var keys []uint64 // frames of shard 0, in the order put
	for i := 0; len(keys) <= len(c.shards[0].ring); i++ {
		f := []byte(fmt.Sprint("frame ", i))
		if k := Key(f); k%uint64(len(c.shards)) == 0 {
			c.Put(k, f, i)
			keys = append(keys, k)
		}
	}
	if len(c.shards[0].m) != len(c.shards[0].ring) {
		t.Errorf("shard holds %d frames, want %d", len(c.shards[0].m), len(c.shards[0].ring))
	}
	if c.shards[0].m[keys[0]] != nil || c.shards[0].m[keys[len(keys)-1]] == nil {
		t.Error("the oldest frame should go first, the newest stay")
	}
}
