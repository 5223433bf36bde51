package ws

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// serverFrame builds an unmasked (server) frame by hand.
func serverFrame(fin bool, op Op, payload []byte) []byte {
	b0 := byte(op)
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	switch n := len(payload); {
	case n < 126:
		out = append(out, byte(n))
	case n <= 0xFFFF:
		out = append(out, 126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, 127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	return append(out, payload...)
}

type got struct {
	op Op
	p  string
}

func feedAll(t *testing.T, chunks [][]byte) []got {
	t.Helper()
	var r Reader
	var out []got
	for _, c := range chunks {
		if err := r.Feed(c, func(op Op, p []byte) error {
			out = append(out, got{op, string(p)})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if r.part != nil || r.msg != nil {
		t.Fatalf("reader keeps %d+%d bytes after whole frames", len(r.part), len(r.msg))
	}
	return out
}

func TestReaderReassemblesAtEverySplit(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 70000)
	mid := bytes.Repeat([]byte("m"), 300)
	var stream []byte
	stream = append(stream, serverFrame(true, OpBinary, []byte("hello"))...)
	stream = append(stream, serverFrame(true, OpText, nil)...)
	stream = append(stream, serverFrame(false, OpBinary, []byte("frag-"))...)
	stream = append(stream, serverFrame(true, OpPing, []byte("p"))...) // control inside a message
	stream = append(stream, serverFrame(false, OpContinuation, mid)...)
	stream = append(stream, serverFrame(true, OpContinuation, []byte("-end"))...)
	stream = append(stream, serverFrame(true, OpBinary, big)...)
	stream = append(stream, serverFrame(true, OpClose, ClosePayload(1000, "bye"))...)
	want := []got{{OpBinary, "hello"}, {OpText, ""}, {OpPing, "p"}, {OpBinary, "frag-" + string(mid) + "-end"},
		{OpBinary, string(big)}, {OpClose, string(ClosePayload(1000, "bye"))}}

	check := func(name string, out []got) {
		t.Helper()
		if len(out) != len(want) {
			t.Fatalf("%s: %d messages, want %d", name, len(out), len(want))
		}
		for i := range want {
			if out[i] != want[i] {
				t.Fatalf("%s: message %d is op %d len %d, want op %d len %d", name, i, out[i].op, len(out[i].p), want[i].op, len(want[i].p))
			}
		}
	}
	check("whole", feedAll(t, [][]byte{stream}))
	for split := 1; split < 400; split++ { // every split point through the small frames
		check(fmt.Sprintf("split at %d", split), feedAll(t, [][]byte{stream[:split], stream[split:]}))
	}
	var bytewise [][]byte
	for i := range stream[:2000] {
		bytewise = append(bytewise, stream[i:i+1])
	}
	check("byte by byte", feedAll(t, append(bytewise, stream[2000:])))
}

func TestReaderRejectsBadFrames(t *testing.T) {
	masked := serverFrame(true, OpBinary, []byte("abcd"))
	masked[1] |= 0x80
	cases := map[string][]byte{
		"masked by the server":   masked,
		"reserved bit":           append([]byte{0xC2, 0}, nil...),
		"long control frame":     serverFrame(true, OpPing, bytes.Repeat([]byte("p"), 126)),
		"fragmented control":     serverFrame(false, OpPong, nil),
		"orphan continuation":    serverFrame(true, OpContinuation, []byte("x")),
		"message inside message": append(serverFrame(false, OpText, []byte("a")), serverFrame(true, OpText, []byte("b"))...),
		"unknown opcode":         serverFrame(true, Op(3), nil),
		"over the limit":         serverFrame(true, OpBinary, make([]byte, 1001)),
		"fragments over limit":   append(serverFrame(false, OpBinary, make([]byte, 600)), serverFrame(true, OpContinuation, make([]byte, 600))...),
	}
	for name, b := range cases {
		r := Reader{Max: 1000}
		err := r.Feed(b, func(Op, []byte) error { return nil })
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFirstMessage(t *testing.T) {
	auth := serverFrame(true, OpText, []byte(`{"errCode":0}`))
	push := serverFrame(true, OpBinary, []byte("push"))
	all := append(append([]byte(nil), auth...), push...)
	for n := 0; n < len(auth); n++ {
		if _, _, _, ok, err := FirstMessage(all[:n]); ok || err != nil {
			t.Fatalf("%d bytes: ok %v err %v", n, ok, err)
		}
	}
	op, p, rest, ok, err := FirstMessage(all)
	if !ok || err != nil || op != OpText || string(p) != `{"errCode":0}` || !bytes.Equal(rest, push) {
		t.Fatalf("got %v %q %q %v %v", op, p, rest, ok, err)
	}
	if _, _, _, _, err := FirstMessage(serverFrame(false, OpText, []byte("x"))); err == nil {
		t.Fatal("a fragment accepted as a first message")
	}
}

// A real server implementation (gorilla's) checks the client side: the
// handshake, the masking of our frames, and reading what it fragments.
func TestAgainstGorillaServer(t *testing.T) {
	up := websocket.Upgrader{WriteBufferSize: 256}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != "good" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"errCode":1501,"errMsg":"token invalid"}`))
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		c.WriteMessage(websocket.TextMessage, []byte("first")) // may share a read with the 101
		for {
			mt, p, err := c.ReadMessage()
			if err != nil {
				return
			}
			// Echo twice: once whole, once as a message longer than the
			// write buffer, which gorilla sends as several frames.
			c.WriteMessage(mt, p)
			c.WriteMessage(mt, bytes.Repeat(p, 100))
		}
	}))
	defer srv.Close()
	dial := func(token string) (net.Conn, []byte, error) {
		u, _ := url.Parse(strings.Replace(srv.URL, "http://", "ws://", 1) + "/?token=" + token)
		nc, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := Handshake(context.Background(), nc, u, 5*time.Second)
		return nc, rest, err
	}

	nc, _, err := dial("bad")
	nc.Close()
	var he *HandshakeError
	if !errors.As(err, &he) || he.Status != 200 || !strings.Contains(string(he.Body), "1501") {
		t.Fatalf("refusal: %v", err)
	}

	nc, rest, err := dial("good")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	msgs := make(chan got, 10)
	r := Reader{Max: 8 << 20}
	feed := func(b []byte) error {
		err := r.Feed(b, func(op Op, p []byte) error { msgs <- got{op, string(p)}; return nil })
		if err != nil {
			t.Error(err)
		}
		return err
	}
	feed(rest)
	go func() {
		buf := make([]byte, 1000)
		for {
			n, err := nc.Read(buf)
			if feed(buf[:n]) != nil || err != nil {
				return
			}
		}
	}()
	expect := func(op Op, p string) {
		t.Helper()
		select {
		case m := <-msgs:
			if m.op != op || m.p != p {
				t.Fatalf("got op %d (%d bytes), want op %d (%d bytes)", m.op, len(m.p), op, len(p))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no message, want %d bytes", len(p))
		}
	}
	expect(OpText, "first")
	for _, size := range []int{0, 5, 125, 126, 3000, 70000} {
		p := bytes.Repeat([]byte{byte(size)}, size)
		if _, err := nc.Write(AppendFrame(nil, OpBinary, p)); err != nil {
			t.Fatal(err)
		}
		expect(OpBinary, string(p))
		expect(OpBinary, strings.Repeat(string(p), 100))
	}
}

func TestMaskIsItsOwnInverse(t *testing.T) {
	p := []byte("the quick brown fox jumps over the lazy dog")
	f := AppendFrame(nil, OpBinary, p)
	key := [4]byte(f[2:6])
	body := append([]byte(nil), f[6:]...)
	if bytes.Equal(body, p) {
		t.Fatal("payload not masked")
	}
	mask(body, key)
	if !bytes.Equal(body, p) {
		t.Fatalf("unmasked %q", body)
	}
}
