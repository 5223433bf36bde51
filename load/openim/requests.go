package openim

import (
	"fmt"
	"strconv"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/ws"
	wire "github.com/imbench/imbench/wire/openim"
)

func (c *conn) request(id int32, data []byte, cb func(*wire.Resp, error)) error {
	incr := c.uid + "_" + strconv.FormatUint(c.incr.Add(1), 10)
	if err := c.pending.Add(incr, pending{cb: cb, id: id}); err != nil {
		return err // closed: the MsgIncr is new
	}
	c.reqs.Add(1)
	if t := c.d.trace; t != nil {
		t(c.user, strconv.Itoa(int(id)))
	}
	frame, err := c.codec.EncodeReq(&wire.Req{ReqIdentifier: id, SendID: c.uid, OperationID: incr, MsgIncr: incr, Data: data})
	if err == nil {
		err = c.write(ws.OpBinary, frame)
	}
	if err != nil {
		if _, ok := c.pending.Take(incr); ok {
			return err
		}
	}
	return nil
}

// unanswered fails a request no answer came to in time.
func (c *conn) unanswered(p pending) {
	p.cb(nil, fmt.Errorf("%w: no answer to request %d within %s", engine.ErrUnanswered, p.id, c.d.cfg.Timeout))
}

func respError(r *wire.Resp) error {
	if r.ErrCode != 0 {
		return &APIError{Path: "request " + strconv.Itoa(int(r.ReqIdentifier)), Code: r.ErrCode, Msg: r.ErrMsg}
	}
	return nil
}
