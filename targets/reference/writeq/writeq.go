// Package writeq is a connection's queue of frames waiting for its writer,
// shared by the front ends that write whole frames (OpenIM, WuKongIM).
package writeq

import "sync"

// Queue is a slice, not a buffered channel, so that an idle connection
// holds no queue (1,024 slots of a channel cost 64 KB each). Its writer
// takes the whole queue each time, so it is woken only when a frame lands
// in an empty queue: otherwise it is busy or already woken. The zero value
// is ready.
type Queue[T any] struct {
	mu    sync.Mutex
	items []T
	wake  chan struct{}
}

// wakeLocked is the writer's wake-up, made on first use.
func (q *Queue[T]) wakeLocked() chan struct{} {
	if q.wake == nil {
		q.wake = make(chan struct{}, 1)
	}
	return q.wake
}

func (q *Queue[T]) signal(wake chan struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}

// Push queues v unless limit frames wait already; false when full.
func (q *Queue[T]) Push(v T, limit int) bool {
	q.mu.Lock()
	n := len(q.items)
	if n >= limit {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, v)
	wake := q.wakeLocked()
	q.mu.Unlock()
	if n == 0 {
		q.signal(wake)
	}
	return true
}

// PushFront puts v before everything queued.
func (q *Queue[T]) PushFront(v T) {
	q.mu.Lock()
	q.items = append([]T{v}, q.items...)
	wake := q.wakeLocked()
	q.mu.Unlock()
	q.signal(wake)
}

// Take waits for queued frames and takes them all, leaving spare (emptied)
// as the new queue; nil once done is closed and nothing is queued.
func (q *Queue[T]) Take(spare []T, done <-chan struct{}) []T {
	for {
		q.mu.Lock()
		items := q.items
		if len(items) > 0 {
			q.items = spare
		}
		wake := q.wakeLocked()
		q.mu.Unlock()
		if len(items) > 0 {
			return items
		}
		select {
		case <-wake:
		case <-done:
			return nil
		}
	}
}
