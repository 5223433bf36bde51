//go:build linux

package netloop

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const pollSupported = true

// poller is one epoll loop. Its goroutine runs while it has connections and
// returns when the last one has ended.
//
// The loop never blocks in epoll_wait: a goroutine parked in a blocking
// syscall keeps the runtime's sysmon thread waking every few microseconds to
// hand its P over. Instead the epoll descriptor itself sits in Go's netpoller
// (it is readable when any socket of ours is), the goroutine parks there, and
// epoll_wait is only ever called with a zero timeout.
type poller struct {
	epfd    int
	raw     syscall.RawConn
	file    *os.File // owns epfd; its read deadline paces the sweeps
	mu      sync.Mutex
	conns   map[int]*pollConn // by fd
	running bool

	// The loop goroutine's alone: connections to flush, in the order they
	// asked (FlushAfter), and the monotonic ns of the next sweep and of
	// the read deadline the loop parks with.
	later     []*pollConn
	head      int // later[:head] are done
	nextSweep int64
	deadline  int64
}

var (
	pollersOnce sync.Once
	pollers     []*poller
	pollersErr  error
	nextPoller  atomic.Uint32
	epoch       = time.Now()
)

// pollerCount is how many epoll loops to run: IMBENCH_NETLOOP_LOOPS, or by
// default one per two cores (a loop's goroutine is seldom the bottleneck, and
// fewer loops each take bigger batches per wake-up), at most 8.
func pollerCount() int {
	if n, err := strconv.Atoi(os.Getenv("IMBENCH_NETLOOP_LOOPS")); err == nil && n > 0 {
		return min(n, 64)
	}
	return min(max(runtime.GOMAXPROCS(0)/2, 1), 8)
}

func monotonic() int64 { return int64(time.Since(epoch)) }

func pickPoller() (*poller, error) {
	pollersOnce.Do(func() {
		n := pollerCount()
		for range n {
			fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
			if err == nil {
				err = unix.SetNonblock(fd, true)
			}
			if err != nil {
				pollersErr = fmt.Errorf("netloop: epoll: %w", err)
				return
			}
			f := os.NewFile(uintptr(fd), "netloop-epoll")
			raw, err := f.SyscallConn()
			if err != nil {
				pollersErr = fmt.Errorf("netloop: epoll: %w", err)
				return
			}
			pollers = append(pollers, &poller{epfd: fd, raw: raw, file: f, conns: map[int]*pollConn{}})
		}
	})
	if pollersErr != nil {
		return nil, pollersErr
	}
	return pollers[int(nextPoller.Add(1))%len(pollers)], nil
}

// pollConn is a socket owned by a poller: only the poller reads it and
// closes its descriptor; writers share it under wmu.
type pollConn struct {
	p       *poller
	fd      int
	h       Handler
	timeout int64 // ns; 0: none
	last    int64 // monotonic ns of the last byte read; the poller's alone
	flushAt int64 // monotonic ns a flush is due; 0: none; the poller's alone
	gone    bool  // ended: no flush after OnClose; the poller's alone

	wmu     sync.Mutex
	why     error // the reason it is ending, once decided
	closed  bool  // fd closed: no more writes
	started bool  // handed to the poller, which will close the fd
}

func attachPoll(tc *net.TCPConn, h Handler, readTimeout time.Duration) (Stream, error) {
	raw, err := tc.SyscallConn()
	if err != nil {
		tc.Close()
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		derr = err
	}
	// Closing the original takes it out of Go's netpoller; the duplicate
	// keeps the socket (and its O_NONBLOCK) alive for us.
	tc.Close()

	if derr != nil {
		return nil, fmt.Errorf("netloop: dup: %w", derr)
	}
	p, err := pickPoller()
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &pollConn{p: p, fd: fd, h: h, timeout: int64(readTimeout)}, nil
}

func (c *pollConn) Start(pending []byte) error {
	fail := func(err error) error {
		c.wmu.Lock()
		if !c.closed {
			c.closed = true
			unix.Close(c.fd)
		}
		c.wmu.Unlock()
		return err
	}
	if len(pending) > 0 {
		if err := c.h.OnData(pending); err != nil {
			return fail(err)
		}
	}
	c.wmu.Lock()
	if c.closed || c.why != nil {
		c.wmu.Unlock()
		return fail(ErrClosed)
	}
	c.started = true
	c.wmu.Unlock()
	c.last = monotonic()
	if err := c.p.add(c); err != nil {
		return fail(err)
	}
	return nil
}

func (p *poller) add(c *pollConn) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c.fd)}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
		return fmt.Errorf("netloop: epoll_ctl: %w", err)
	}
	p.conns[c.fd] = c
	if !p.running {
		p.running = true
		go p.run()
	}
	return nil
}

const sweepEvery = time.Second

func (p *poller) run() {
	events := make([]unix.EpollEvent, 256)
	ready := make([]*pollConn, len(events))
	buf := make([]byte, 64<<10)
	p.nextSweep = monotonic() + int64(sweepEvery)
	p.park()
	for {
		var n int
		var werr error
		err := p.raw.Read(func(fd uintptr) bool {
			n, werr = epollWaitNow(int(fd), events)
			if errors.Is(werr, unix.EINTR) {
				n, werr = 0, nil
			}
			return n > 0 || werr != nil // false: park until the epoll fd is readable
		})
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			p.deadline = 0 // passed: park sets the next one
			if now := monotonic(); now >= p.nextSweep {
				p.sweep(now)
				p.nextSweep = now + int64(sweepEvery)
			}
		case err != nil || werr != nil:
			p.fail(fmt.Errorf("netloop: epoll_wait: %w", errors.Join(err, werr)))
			return
		}
		now := monotonic()
		// One lookup under the lock for the batch: only this goroutine
		// ends connections, so none of them goes away meanwhile.
		p.mu.Lock()
		for i := range n {
			ready[i] = p.conns[int(events[i].Fd)]
		}
		p.mu.Unlock()
		for _, c := range ready[:n] {
			if c != nil {
				c.readReady(buf, now)
			}
		}
		p.flushDue(now)
		p.park()
		p.mu.Lock()
		if len(p.conns) == 0 {
			clear(p.later) // every one of them has ended
			p.later, p.head = p.later[:0], 0
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// FlushAfter queues c for a flush d from now, unless one is due already.
// Before the loop serves c (bytes handed to Start) it flushes at once.
func (c *pollConn) FlushAfter(d time.Duration) {
	f, ok := c.h.(Flusher)
	switch {
	case !ok:
	case !c.started:
		f.Flush()
	case c.flushAt == 0:
		c.flushAt = max(monotonic()+int64(d), 1)
		c.p.later = append(c.p.later, c)
	}
}

// flushDue flushes the connections whose time has come, in the order
// they asked: with one delay for all, that is the order they fall due (a
// shorter delay asked after a longer one waits for it: late, never lost).
func (p *poller) flushDue(now int64) {
	for p.head < len(p.later) && p.later[p.head].flushAt <= now {
		c := p.later[p.head]
		p.later[p.head] = nil
		p.head++
		c.flushAt = 0
		if !c.gone {
			c.h.(Flusher).Flush()
		}
	}
	switch {
	case p.head == len(p.later):
		p.later, p.head = p.later[:0], 0
	case p.head >= 1024 && p.head >= len(p.later)/2:
		n := copy(p.later, p.later[p.head:])
		clear(p.later[n:])
		p.later, p.head = p.later[:n], 0
	}
}

// park sets the read deadline the loop waits with: the next sweep, or
// the first flush due, whichever comes first.
func (p *poller) park() {
	want := p.nextSweep
	if p.head < len(p.later) {
		want = min(want, p.later[p.head].flushAt)
	}
	if want != p.deadline {
		p.deadline = want
		p.file.SetReadDeadline(epoch.Add(time.Duration(want)))
	}
}

// readReady reads once: level-triggered epoll reports the socket again if
// more is waiting.
func (c *pollConn) readReady(buf []byte, now int64) {
	n, err := rawRead(c.fd, buf)
	switch {
	case n > 0:
		c.last = now
		if herr := c.h.OnData(buf[:n]); herr != nil {
			c.p.end(c, herr)
		}
	case n == 0:
		c.p.end(c, io.EOF)
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
	default:
		c.p.end(c, err)
	}
}

// sweep ends connections silent for longer than their read timeout.
func (p *poller) sweep(now int64) {
	var late []*pollConn
	p.mu.Lock()
	for _, c := range p.conns {
		if c.timeout > 0 && now-c.last > c.timeout {
			late = append(late, c)
		}
	}
	p.mu.Unlock()
	for _, c := range late {
		p.end(c, ErrReadTimeout)
	}
}

// end retires c: out of epoll and the table, descriptor closed (after any
// writer has let go of it), then OnClose with the first reason decided.
func (p *poller) end(c *pollConn, err error) {
	c.gone = true
	unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
	p.mu.Lock()
	delete(p.conns, c.fd)
	p.mu.Unlock()
	unix.Shutdown(c.fd, unix.SHUT_RDWR) // wakes a writer waiting for room
	c.wmu.Lock()
	if c.why == nil {
		c.why = err
	}
	err = c.why
	c.closed = true
	unix.Close(c.fd)
	c.wmu.Unlock()
	c.h.OnClose(err)
}

// fail ends every connection of a poller whose epoll broke.
func (p *poller) fail(err error) {
	p.mu.Lock()
	var all []*pollConn
	for _, c := range p.conns {
		all = append(all, c)
	}
	p.mu.Unlock()
	for _, c := range all {
		p.end(c, err)
	}
	p.mu.Lock()
	p.running = false
	p.mu.Unlock()
}

func (c *pollConn) Write(b []byte, timeout time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed || c.why != nil {
		return ErrClosed
	}
	var deadline time.Time
	for len(b) > 0 {
		n, err := rawWrite(c.fd, b)
		if n > 0 {
			b = b[n:]
			continue
		}
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			if deadline.IsZero() {
				deadline = time.Now().Add(timeout)
			}
			left := time.Until(deadline)
			if left <= 0 {
				return c.failLocked(ErrWriteTimeout)
			}
			fds := []unix.PollFd{{Fd: int32(c.fd), Events: unix.POLLOUT}}
			if _, err := unix.Poll(fds, int(left/time.Millisecond)+1); err != nil && !errors.Is(err, unix.EINTR) {
				return c.failLocked(err)
			}
		default:
			return c.failLocked(err)
		}
	}
	return nil
}

// failLocked decides the end of c and wakes its poller by shutting the
// socket down; the poller does the rest.
func (c *pollConn) failLocked(err error) error {
	if c.why == nil {
		c.why = err
	}
	unix.Shutdown(c.fd, unix.SHUT_RDWR)
	return err
}

func (c *pollConn) Close() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	switch {
	case !c.started && !c.closed:
		c.why, c.closed = ErrClosed, true
		unix.Close(c.fd)
	case !c.closed && c.why == nil:
		c.failLocked(ErrClosed)
	}
	return nil
}

// The socket calls below never block (the descriptors are non-blocking and
// epoll_wait gets a zero timeout), so they skip the runtime's syscall
// bookkeeping: entering and leaving a "syscall" state per read, many
// thousand times a second, is what keeps sysmon busy retaking Ps.

func rawRead(fd int, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

func rawWrite(fd int, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

func epollWaitNow(epfd int, events []unix.EpollEvent) (int, error) {
	n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
