package openim

import (
	"encoding/json"
	"errors"
	"net"
	"time"

	"github.com/gorilla/websocket"
)

// readLoop reads the client's frames until the connection ends, keeping
// the read deadline ahead of every frame, ping and pong.
func (c *conn) readLoop() {
	defer func() {
		c.g.Core.Detach(c.sess)
		c.Close()
	}()
	c.ws.SetReadLimit(maxMessageSize)
	extend := func() { c.ws.SetReadDeadline(time.Now().Add(c.g.ReadTimeout)) }
	extend()
	c.ws.SetPingHandler(func(data string) error {
		extend()
		err := c.ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(writeWait))
		if errors.Is(err, websocket.ErrCloseSent) {
			return nil
		}
		return err
	})
	c.ws.SetPongHandler(func(string) error { extend(); return nil })
	// The client's goodbye is answered unless a drop got there first; the
	// client tells the two apart by that answer.
	c.ws.SetCloseHandler(func(code int, _ string) error {
		c.end(websocket.FormatCloseMessage(code, ""))
		return nil
	})
	for {
		mt, data, err := c.ws.ReadMessage()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				c.g.Metrics.HeartbeatTimeout()
			}
			return
		}
		extend()
		switch mt {
		case websocket.BinaryMessage:
			if !c.handle(data) {
				return
			}
		case websocket.TextMessage:
			if !c.handleText(data) {
				return
			}
		}
	}
}

type textMsg struct {
	Type string          `json:"type"`
	Body json.RawMessage `json:"body"`
}

// handleText answers the JSON application ping; false closes the
// connection, as msggateway does on any other text frame.
func (c *conn) handleText(data []byte) bool {
	var msg textMsg
	if json.Unmarshal(data, &msg) != nil {
		return false
	}
	switch msg.Type {
	case "ping":
		body := msg.Body
		if len(body) == 0 {
			body = json.RawMessage("null")
		}
		pong, _ := json.Marshal(textMsg{"pong", body})
		c.enqueue(frame{data: pong, text: true, at: time.Now()})
	case "pong":
	default:
		return false // "not support message type"
	}
	return true
}
