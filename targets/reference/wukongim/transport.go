package wukongim

import (
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// transport is a connection's byte stream both ways: TCP as it is, or the
// payloads of WebSocket binary messages appended into one stream (a message
// may hold several frames, a frame span messages). write sends one batch of
// frames (one WebSocket message); its callers never write concurrently.
type transport interface {
	Read(p []byte) (int, error)
	SetReadDeadline(t time.Time) error
	write(b []byte, deadline time.Time) error
	remote() string // the peer's address
	Close() error
}

type tcpTransport struct{ net.Conn }

func newTCPTransport(nc net.Conn) *tcpTransport { return &tcpTransport{nc} }

func (t *tcpTransport) remote() string { return t.RemoteAddr().String() }

func (t *tcpTransport) write(b []byte, deadline time.Time) error {
	t.SetWriteDeadline(deadline)
	_, err := t.Write(b)
	return err
}

// errTextMessage ends a WebSocket connection that sends text: the real
// server would take it for JSON-RPC, which this one does not speak.
var errTextMessage = errors.New("wukongim: text message on a binary WKProto connection")

type wsTransport struct {
	ws *websocket.Conn
	r  io.Reader // the message being read
}

func (t *wsTransport) Read(p []byte) (int, error) {
	for {
		if t.r == nil {
			mt, r, err := t.ws.NextReader()
			if err != nil {
				return 0, err
			}
			if mt != websocket.BinaryMessage {
				return 0, errTextMessage
			}
			t.r = r
		}
		n, err := t.r.Read(p)
		if err == io.EOF {
			t.r = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

func (t *wsTransport) SetReadDeadline(d time.Time) error { return t.ws.SetReadDeadline(d) }

func (t *wsTransport) remote() string { return t.ws.RemoteAddr().String() }

func (t *wsTransport) write(b []byte, deadline time.Time) error {
	t.ws.SetWriteDeadline(deadline)
	return t.ws.WriteMessage(websocket.BinaryMessage, b)
}

// Close drops the TCP connection with no close frame, as a drop does.
func (t *wsTransport) Close() error { return t.ws.NetConn().Close() }

// maxWSMessage bounds one WebSocket message: a frame's largest body and
// header, with room for a few small frames beside it.
const maxWSMessage = wire.MaxRemainingLength + 64<<10

func newUpgrader() *websocket.Upgrader {
	return &websocket.Upgrader{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 4096, WriteBufferSize: 4096,
		CheckOrigin: func(*http.Request) bool { return true }}
}

type wsGateway struct {
	g        *gateway
	upgrader *websocket.Upgrader
}

// ServeHTTP upgrades any path, as the real server does.
func (w *wsGateway) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	ws, err := w.upgrader.Upgrade(rw, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(maxWSMessage)
	w.g.serve(&wsTransport{ws: ws})
}

// frameReader cuts frames out of a transport's stream.
type frameReader struct {
	t          transport
	buf        []byte
	start, end int
	g          *gateway
}

// readBuf is the first read buffer; a larger frame grows it.
const readBuf = 4096

// next returns the next frame; body aliases the buffer until the next call.
// deadline bounds the wait for more bytes.
func (r *frameReader) next(deadline func() time.Time) (wire.PacketType, uint8, []byte, error) {
	for {
		t, flags, body, n, err := wire.SplitFrame(r.buf[r.start:r.end])
		if err != nil {
			return 0, 0, nil, err
		}
		if n > 0 {
			r.start += n
			return t, flags, body, nil
		}
		if err := r.fill(deadline()); err != nil {
			return 0, 0, nil, err
		}
	}
}

// buffered reports bytes read past the last frame returned.
func (r *frameReader) buffered() bool { return r.end > r.start }

func (r *frameReader) fill(deadline time.Time) error {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end == 0 && len(r.buf) > 16*readBuf {
		r.buf = make([]byte, readBuf) // a large frame is gone: give its room back
	}
	if r.end == len(r.buf) {
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
	r.t.SetReadDeadline(deadline)
	n, err := r.t.Read(r.buf[r.end:])
	r.end += n
	r.g.f.Metrics.inBytes.Add(int64(n))
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}
