// Package ws is the client side of RFC 6455 that imbench needs: the opening
// handshake over a connection the caller dialed, an incremental frame reader
// fed with whatever bytes arrived (so an event loop can drive it), and
// masked client frames. No extensions, no subprotocols.
package ws

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// HandshakeError is a server that answered the upgrade with something other
// than 101: its status and (the start of) its body, which some servers (the
// OpenIM gateway among them) use to say why.
type HandshakeError struct {
	Status int
	Body   []byte
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("websocket handshake refused with HTTP %d", e.Status)
}

// Handshake upgrades nc to a WebSocket for u (ws:// or wss://; TLS, if any,
// is the caller's). It returns the bytes the server sent past its response,
// which belong to the first frames.
func Handshake(ctx context.Context, nc net.Conn, u *url.URL, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	nc.SetDeadline(deadline)
	defer nc.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	path := u.RequestURI()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
		"\r\nSec-WebSocket-Version: 13\r\nUser-Agent: imbench\r\n\r\n"
	if _, err := io.WriteString(nc, req); err != nil {
		return nil, ctxOr(ctx, err)
	}
	br := bufio.NewReaderSize(nc, 1024)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet, URL: u})
	if err != nil {
		return nil, ctxOr(ctx, fmt.Errorf("websocket handshake: %w", err))
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, &HandshakeError{Status: resp.StatusCode, Body: body}
	}
	if !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") ||
		!headerHas(resp.Header, "Connection", "upgrade") ||
		resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key) {
		return nil, fmt.Errorf("websocket handshake: the server's 101 answer is not a valid upgrade")
	}
	if ext := resp.Header.Get("Sec-WebSocket-Extensions"); ext != "" {
		return nil, fmt.Errorf("websocket handshake: the server chose extension %q that was not offered", ext)
	}
	if n := br.Buffered(); n > 0 {
		rest, _ := br.Peek(n)
		return append([]byte(nil), rest...), nil
	}
	return nil, nil
}

func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + acceptGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
