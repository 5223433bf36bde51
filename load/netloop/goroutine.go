package netloop

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// goConn reads its connection from a goroutine of its own.
type goConn struct {
	nc      net.Conn
	h       Handler
	timeout time.Duration
	wmu     sync.Mutex
	closing atomic.Bool
	failed  atomic.Pointer[error] // a write failure that ended it
}

var readBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

func (c *goConn) Start(pending []byte) error {
	if len(pending) > 0 {
		if err := c.h.OnData(pending); err != nil {
			c.nc.Close()
			return err
		}
	}
	go c.readLoop()
	return nil
}

func (c *goConn) readLoop() {
	var err error
	for {
		if c.timeout > 0 {
			c.nc.SetReadDeadline(time.Now().Add(c.timeout))
		}
		bp := readBufs.Get().(*[]byte)
		var n int
		n, err = c.nc.Read(*bp)
		if n > 0 {
			if herr := c.h.OnData((*bp)[:n]); herr != nil && err == nil {
				err = herr
			}
		}
		readBufs.Put(bp)
		if err != nil {
			break
		}
	}
	c.nc.Close()
	switch {
	case c.closing.Load():
		err = ErrClosed
	case c.failed.Load() != nil:
		err = *c.failed.Load()
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = ErrReadTimeout
	case errors.Is(err, net.ErrClosed):
		err = io.EOF
	}
	c.h.OnClose(err)
}

func (c *goConn) Write(b []byte, timeout time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closing.Load() || c.failed.Load() != nil {
		return ErrClosed
	}
	c.nc.SetWriteDeadline(time.Now().Add(timeout))
	_, err := c.nc.Write(b)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = ErrWriteTimeout
		}
		c.failed.CompareAndSwap(nil, &err)
		c.nc.Close()
	}
	return err
}

// FlushAfter flushes at once: the reader goroutine is blocked in Read
// until the next bytes come, with no round to flush at.
func (c *goConn) FlushAfter(time.Duration) {
	if f, ok := c.h.(Flusher); ok {
		f.Flush()
	}
}

func (c *goConn) Close() error {
	if c.closing.CompareAndSwap(false, true) {
		return c.nc.Close()
	}
	return nil
}
