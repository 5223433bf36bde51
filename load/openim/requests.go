package openim

import (
	"fmt"
	"strconv"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/ws"
	wire "github.com/imbench/imbench/wire/openim"
)

func (c *conn) request(id int32, data []byte, cb func(*wire.Resp, error)) error {
	incr := c.uid + "_" + strconv.FormatUint(c.incr.Add(1), 10)
	p := &pending{cb: cb}
	c.pmu.Lock()
	if c.pending == nil {
		c.pmu.Unlock()
		return errConnClosed
	}
	c.pending[incr] = p
	p.timer = time.AfterFunc(c.d.cfg.Timeout, func() {
		if c.take(incr) != nil {
			cb(nil, fmt.Errorf("%w: no answer to request %d within %s", engine.ErrUnanswered, id, c.d.cfg.Timeout))
		}
	})
	c.pmu.Unlock()
	c.reqs.Add(1)
	if t := c.d.trace; t != nil {
		t(c.user, strconv.Itoa(int(id)))
	}
	frame, err := c.codec.EncodeReq(&wire.Req{ReqIdentifier: id, SendID: c.uid, OperationID: incr, MsgIncr: incr, Data: data})
	if err == nil {
		err = c.write(ws.OpBinary, frame)
	}
	if err != nil && c.take(incr) != nil {
		return err
	}
	return nil
}

func (c *conn) take(incr string) *pending {
	c.pmu.Lock()
	p := c.pending[incr]
	delete(c.pending, incr)
	c.pmu.Unlock()
	if p != nil && p.timer != nil {
		p.timer.Stop()
	}
	return p
}

func respError(r *wire.Resp) error {
	if r.ErrCode != 0 {
		return &APIError{Path: "request " + strconv.Itoa(int(r.ReqIdentifier)), Code: r.ErrCode, Msg: r.ErrMsg}
	}
	return nil
}
