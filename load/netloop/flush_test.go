package netloop

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// acker acknowledges every line it reads, holding the acks for a flush
// FlushAfter asks for: one write per flush. A loop flushes between
// OnData calls; a reader goroutine within FlushAfter, so at once.
type acker struct {
	*collector
	st      Stream
	delay   time.Duration
	inside  atomic.Bool // in OnData or Flush
	overlap atomic.Bool
	mu      sync.Mutex
	owed    int
	flushes int
	first   time.Time     // of the first OnData
	flushed time.Duration // after first, when the first flush came
}

func (a *acker) enter() {
	if a.inside.Swap(true) {
		a.overlap.Store(true)
	}
}

func (a *acker) OnData(b []byte) error {
	a.enter()
	defer a.inside.Store(false)
	a.mu.Lock()
	if a.first.IsZero() {
		a.first = time.Now()
	}
	a.owed += strings.Count(string(b), "\n")
	a.mu.Unlock()
	a.st.FlushAfter(a.delay)
	return a.collector.OnData(b)
}

func (a *acker) Flush() {
	a.enter()
	defer a.inside.Store(false)
	a.mu.Lock()
	n := a.owed
	a.owed = 0
	if a.flushes++; a.flushes == 1 {
		a.flushed = time.Since(a.first)
	}
	a.mu.Unlock()
	if n > 0 {
		a.st.Write([]byte(strings.Repeat("A", n)+"\n"), 5*time.Second)
	}
}

// Five lines read apart are acknowledged together, one delay after the
// first, by the loop; reader goroutines flush after every read.
func TestFlushAfterHoldsWritesForOneFlush(t *testing.T) {
	const lines, delay = 5, 300 * time.Millisecond
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			acks := make(chan string, lines)
			addr := server(t, func(c net.Conn) {
				defer c.Close()
				for i := range lines {
					c.Write([]byte("m\n"))
					if i < lines-1 {
						time.Sleep(5 * time.Millisecond)
					}
				}
				r := bufio.NewReader(c)
				got := 0
				for got < lines {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					got += len(line) - 1
					acks <- line
				}
				close(acks)
			})
			a := &acker{collector: newCollector(), delay: delay}
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			st, err := Attach(nc, a, 0, mode)
			if err != nil {
				t.Fatal(err)
			}
			a.st = st
			if err := st.Start(nil); err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var writes []string
			timeout := time.After(10 * time.Second)
		wait:
			for {
				select {
				case line, ok := <-acks:
					if !ok {
						break wait
					}
					writes = append(writes, line)
				case <-timeout:
					t.Fatalf("acknowledged %q of %d lines", writes, lines)
				}
			}
			if mode == Auto && a.overlap.Load() {
				t.Fatal("Flush ran during an OnData")
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			switch {
			case mode == Goroutines && a.flushes < len(writes):
				t.Fatalf("%d flushes for %d writes", a.flushes, len(writes))
			case mode == Auto && len(writes) >= lines:
				t.Fatalf("%d writes for %d lines: nothing held for a flush", len(writes), lines)
			case mode == Auto && a.flushed < delay:
				t.Fatalf("the first flush came %v after the first read, before the %v asked", a.flushed, delay)
			}
		})
	}
}

// closer asks for a flush on every read and notes a flush after OnClose.
type closer struct {
	*collector
	st    Stream
	late  atomic.Bool
	ended atomic.Bool
}

func (c *closer) OnData(b []byte) error {
	c.st.FlushAfter(200 * time.Millisecond)
	return c.collector.OnData(b)
}

func (c *closer) OnClose(err error) {
	c.ended.Store(true)
	c.collector.OnClose(err)
}

func (c *closer) Flush() {
	if c.ended.Load() {
		c.late.Store(true)
	}
}

// A connection that ends while a flush is due gets none after OnClose,
// neither from its loop nor from the next one a new connection starts
// (with one loop, as IMBENCH_NETLOOP_LOOPS=1 or two cores give).
func TestNoFlushAfterClose(t *testing.T) {
	bye := server(t, func(c net.Conn) { c.Write([]byte("bye")); c.Close() })
	stay := server(t, func(c net.Conn) { time.Sleep(time.Second); c.Close() })
	start := func(addr string) *closer {
		c := &closer{collector: newCollector()}
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if c.st, err = Attach(nc, c, 0, Auto); err != nil {
			t.Fatal(err)
		}
		if err := c.st.Start(nil); err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := start(bye)
	first.wait(t)
	next := start(stay) // its loop runs past the flush first had asked for
	next.wait(t)
	if first.late.Load() {
		t.Fatal("Flush came after OnClose")
	}
}
