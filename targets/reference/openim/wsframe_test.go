package openim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// The frames writeLoop writes itself are the bytes gorilla's WriteMessage
// writes, at every length encoding's edges.
func TestWSFramesAreGorillasBytes(t *testing.T) {
	type message struct {
		mt      int
		payload []byte
	}
	var cases []message
	for _, n := range []int{0, 1, 125, 126, 127, 65535, 65536, 70000} {
		for _, mt := range []int{websocket.BinaryMessage, websocket.TextMessage} {
			cases = append(cases, message{mt, bytes.Repeat([]byte{byte(n)}, n)})
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for _, c := range cases {
			ws.WriteMessage(c.mt, c.payload)
		}
	}))
	defer srv.Close()
	nc, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	io.WriteString(nc, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	for _, c := range cases {
		want := appendWSFrame(nil, c.mt, c.payload)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(br, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("type %d, %d bytes: gorilla wrote % x…, appendWSFrame % x…", c.mt, len(c.payload), got[:min(len(got), 12)], want[:min(len(want), 12)])
		}
	}
}

// A reused gzip writer compresses as a new one does.
func TestGzippedIsAFreshWritersOutput(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("a"), bytes.Repeat([]byte("openim push "), 500), []byte("short again")} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(in)
		zw.Close()
		got, err := gzipped(in)
		if err != nil || !bytes.Equal(got, buf.Bytes()) {
			t.Fatalf("%d bytes: gzipped differs from a fresh writer's output (%v)", len(in), err)
		}
		back, err := gunzipped(got)
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("%d bytes: gunzipped gave %d bytes back (%v)", len(in), len(back), err)
		}
	}
}
