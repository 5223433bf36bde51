package limit

import (
	"sync"
	"syscall"
	"time"
)

// selfSampler samples this process's CPU every second: the generator's.
type selfSampler struct {
	done  chan struct{}
	mu    sync.Mutex
	times []time.Time
	cpu   []float64
}

func startSelfSampler() *selfSampler {
	s := &selfSampler{done: make(chan struct{})}
	s.add()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				s.add()
			}
		}
	}()
	return s
}

func (s *selfSampler) add() {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	s.mu.Lock()
	s.times = append(s.times, time.Now())
	s.cpu = append(s.cpu, float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9)
	s.mu.Unlock()
}

func (s *selfSampler) stop() { close(s.done) }

// cores is the process's CPU over [from, to], in cores.
func (s *selfSampler) cores(from, to time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	first, last := -1, -1
	for i, t := range s.times {
		if !t.Before(from) && !t.After(to) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last <= first {
		return 0
	}
	return (s.cpu[last] - s.cpu[first]) / s.times[last].Sub(s.times[first]).Seconds()
}
