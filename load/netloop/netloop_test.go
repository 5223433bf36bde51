package netloop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// collector is a Handler that keeps what it got.
type collector struct {
	mu     sync.Mutex
	data   bytes.Buffer
	closes int
	err    error
	ended  chan struct{}
	fail   error // returned by OnData once data holds failAt bytes
	failAt int
}

func newCollector() *collector { return &collector{ended: make(chan struct{})} }

func (c *collector) OnData(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.data.Write(b)
	if c.fail != nil && c.data.Len() >= c.failAt {
		return c.fail
	}
	return nil
}

func (c *collector) OnClose(err error) {
	c.mu.Lock()
	c.closes++
	c.err = err
	c.mu.Unlock()
	if c.closes == 1 {
		close(c.ended)
	}
}

func (c *collector) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-c.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("OnClose never came")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// closedOnce checks, after a moment for any late call, that every handler
// saw exactly one OnClose.
func closedOnce(t *testing.T, cols ...*collector) {
	t.Helper()
	time.Sleep(50 * time.Millisecond)
	for i, c := range cols {
		c.mu.Lock()
		n := c.closes
		c.mu.Unlock()
		if n != 1 {
			t.Fatalf("handler %d: OnClose called %d times", i, n)
		}
	}
}

func (c *collector) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.data.Bytes()...)
}

// server accepts connections on loopback and hands each to serve.
func server(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return l.Addr().String()
}

var modes = map[string]Mode{"epoll": Auto, "goroutines": Goroutines}

func attach(t *testing.T, addr string, h Handler, timeout time.Duration, mode Mode, pending []byte) Stream {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Attach(nc, h, timeout, mode)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(pending); err != nil {
		t.Fatal(err)
	}
	return s
}

// Many connections at once, each echoing its own bytes back: everything
// arrives, in order, at the right handler, pending bytes first.
func TestEchoManyConnections(t *testing.T) {
	addr := server(t, func(c net.Conn) { io.Copy(c, c); c.Close() })
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			const n = 300
			cols := make([]*collector, n)
			streams := make([]Stream, n)
			want := make([][]byte, n)
			for i := range n {
				cols[i] = newCollector()
				streams[i] = attach(t, addr, cols[i], 0, mode, []byte(fmt.Sprintf("pending-%d|", i)))
				want[i] = []byte(fmt.Sprintf("pending-%d|", i))
			}
			for round := range 20 {
				for i := range n {
					msg := bytes.Repeat([]byte(fmt.Sprintf("<%d.%d>", i, round)), 1+round*50)
					if err := streams[i].Write(msg, 5*time.Second); err != nil {
						t.Fatal(err)
					}
					want[i] = append(want[i], msg...)
				}
			}
			deadline := time.Now().Add(10 * time.Second)
			for i := range n {
				for len(cols[i].bytes()) < len(want[i]) && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				got := cols[i].bytes()
				if !bytes.Equal(got, want[i]) {
					t.Fatalf("connection %d got %d bytes, want %d (first difference matters)", i, len(got), len(want[i]))
				}
			}
			for i := range n {
				streams[i].Close()
				if err := cols[i].wait(t); !errors.Is(err, ErrClosed) {
					t.Fatalf("connection %d ended with %v, want ErrClosed", i, err)
				}
			}
			closedOnce(t, cols...)
			if err := streams[0].Write([]byte("late"), time.Second); err == nil {
				t.Fatal("a write after Close succeeded")
			}
		})
	}
}

func TestPeerCloseIsEOF(t *testing.T) {
	addr := server(t, func(c net.Conn) { c.Write([]byte("bye")); c.Close() })
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			col := newCollector()
			attach(t, addr, col, 0, mode, nil)
			if err := col.wait(t); !errors.Is(err, io.EOF) {
				t.Fatalf("ended with %v, want EOF", err)
			}
			closedOnce(t, col)
			if string(col.bytes()) != "bye" {
				t.Fatalf("got %q", col.bytes())
			}
		})
	}
}

func TestSilenceEndsWithReadTimeout(t *testing.T) {
	addr := server(t, func(c net.Conn) { time.Sleep(5 * time.Second); c.Close() })
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			col := newCollector()
			attach(t, addr, col, 200*time.Millisecond, mode, nil)
			if err := col.wait(t); !errors.Is(err, ErrReadTimeout) {
				t.Fatalf("ended with %v, want ErrReadTimeout", err)
			}
		})
	}
}

func TestHandlerErrorEndsTheConnection(t *testing.T) {
	addr := server(t, func(c net.Conn) { c.Write([]byte("0123456789")); time.Sleep(5 * time.Second); c.Close() })
	boom := errors.New("bad frame")
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			col := newCollector()
			col.fail, col.failAt = boom, 1
			attach(t, addr, col, 0, mode, nil)
			if err := col.wait(t); !errors.Is(err, boom) {
				t.Fatalf("ended with %v, want the handler's error", err)
			}
		})
	}
}

func TestPendingFailureClosesWithoutOnClose(t *testing.T) {
	addr := server(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	boom := errors.New("bad auth frame")
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			col := newCollector()
			col.fail, col.failAt = boom, 1
			s, err := Attach(nc, col, 0, mode)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start([]byte("x")); !errors.Is(err, boom) {
				t.Fatalf("Start: %v", err)
			}
			if err := s.Write([]byte("y"), time.Second); err == nil {
				t.Fatal("write after a failed Start succeeded")
			}
			select {
			case <-col.ended:
				t.Fatal("OnClose after a failed Start")
			case <-time.After(100 * time.Millisecond):
			}
		})
	}
}

// Connections come and go while others carry data: descriptors are reused
// by the kernel, and no byte may reach another connection's handler.
func TestChurnKeepsStreamsApart(t *testing.T) {
	addr := server(t, func(c net.Conn) { io.Copy(c, c); c.Close() })
	const live, churn = 50, 400
	cols := make([]*collector, live)
	streams := make([]Stream, live)
	for i := range live {
		cols[i] = newCollector()
		streams[i] = attach(t, addr, cols[i], 0, Auto, nil)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	churned := make([]*collector, churn)
	go func() {
		defer wg.Done()
		for j := range churn {
			churned[j] = newCollector()
			s := attach(t, addr, churned[j], 0, Auto, nil)
			s.Write([]byte("churn!"), time.Second)
			s.Close()
			churned[j].wait(t)
		}
	}()
	want := make([][]byte, live)
	for round := range 40 {
		for i := range live {
			msg := []byte(fmt.Sprintf("[%d:%d]", i, round))
			if err := streams[i].Write(msg, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			want[i] = append(want[i], msg...)
		}
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for i := range live {
		for len(cols[i].bytes()) < len(want[i]) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := cols[i].bytes(); !bytes.Equal(got, want[i]) {
			t.Fatalf("connection %d got %q, want %q", i, got, want[i])
		}
		streams[i].Close()
		cols[i].wait(t)
	}
	closedOnce(t, append(cols, churned...)...)
	for j, c := range churned {
		if got := c.bytes(); len(got) > 0 && string(got) != "churn!" {
			t.Fatalf("churned connection %d got %q", j, got)
		}
	}
	if pollSupported {
		waitPollersIdle(t)
	}
}
