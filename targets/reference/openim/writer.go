package openim

import (
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	wire "github.com/imbench/imbench/wire/openim"
)

const (
	flushBytes = 256 << 10 // a batch this big is written before more is added
	keepBatch  = 1 << 20   // a batch buffer that grew past this is not reused
	// writeLoop reuses a taken queue's slice for the next queue, if no
	// longer than this: an idle connection keeps no big one.
	spareFrames = 64
)

// batch is queued frames gathered for one write to the socket.
type batch struct {
	buf       []byte
	sendTimes []int64 // of the pushes in buf, for the push counts
}

// Batches are shared by all connections, so an idle one holds none.
var batches = sync.Pool{New: func() any { return new(batch) }}

func (c *conn) writeLoop() {
	var spare []frame
	for {
		if cap(spare) > spareFrames {
			spare = nil
		}
		frames := c.q.Take(spare, c.done)
		if frames == nil {
			return
		}
		b := batches.Get().(*batch)
		ok := c.writeFrames(b, frames)
		if cap(b.buf) <= keepBatch {
			b.buf, b.sendTimes = b.buf[:0], b.sendTimes[:0] // what a failed write left
			batches.Put(b)
		}
		if !ok {
			return
		}
		clear(frames)
		spare = frames[:0]
	}
}

// writeFrames writes frames in order, as few writes as their delays allow;
// false ends the connection.
func (c *conn) writeFrames(b *batch, frames []frame) bool {
	now := time.Now()
	for _, f := range frames {
		if f.at.After(now) {
			if !c.flush(b) || !c.sleepUntil(f.at) {
				return false
			}
			now = time.Now()
		}
		if err := c.add(b, f); err != nil || f.kick || f.final {
			c.flush(b)
			c.Close()
			return false
		}
		if len(b.buf) >= flushBytes && !c.flush(b) {
			return false
		}
	}
	return c.flush(b)
}

// add appends one queued frame's messages to the batch.
func (c *conn) add(b *batch, f frame) error {
	switch {
	case f.kick:
		data, err := c.encode(&wire.Resp{ReqIdentifier: wire.KickOnlineMsg})
		if err != nil {
			return err
		}
		b.buf = appendWSFrame(b.buf, websocket.BinaryMessage, data)
	case f.push != nil:
		pf := framesOf(f.push)
		datas, err := pf.frames(c.variant)
		if err != nil {
			return err
		}
		for _, data := range datas {
			b.buf = appendWSFrame(b.buf, websocket.BinaryMessage, data)
		}
		b.sendTimes = append(b.sendTimes, pf.sendTime)
	case f.text:
		b.buf = appendWSFrame(b.buf, websocket.TextMessage, f.data)
	default:
		b.buf = appendWSFrame(b.buf, websocket.BinaryMessage, f.data)
	}
	return nil
}

// flush writes the batch so far and counts its pushes; false ends the
// connection. Nothing is written once the connection is ending, so that
// end's close frame is the last frame out.
func (c *conn) flush(b *batch) bool {
	if len(b.buf) == 0 {
		return true
	}
	c.wmu.Lock()
	err := net.ErrClosed
	if !c.ended() {
		// No deadline, as msggateway's loopSend: a reader that stalls
		// fills the queue instead. Cleared each time, since a control
		// frame (a pong, a close) leaves its own deadline on the socket.
		c.nc.SetWriteDeadline(time.Time{})
		_, err = c.nc.Write(b.buf)
	}
	c.wmu.Unlock()
	if err != nil {
		c.Close()
		return false
	}
	if len(b.sendTimes) > 0 {
		c.g.Metrics.pushesWritten(b.sendTimes, time.Now().UnixMilli())
	}
	b.buf, b.sendTimes = b.buf[:0], b.sendTimes[:0]
	return true
}

func (c *conn) sleepUntil(at time.Time) bool {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	}
}
