package ws

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// fuzzFrames are seeds: whole server streams of several frames.
func fuzzFrames() [][]byte {
	cat := func(fs ...[]byte) []byte { return bytes.Join(fs, nil) }
	long := bytes.Repeat([]byte("y"), 300)
	return [][]byte{
		serverFrame(true, OpBinary, []byte("hello")),
		cat(serverFrame(true, OpText, []byte(`{"errCode":0}`)), serverFrame(true, OpBinary, long)),
		cat(serverFrame(false, OpBinary, []byte("ab")), serverFrame(true, OpPing, []byte("p")),
			serverFrame(false, OpContinuation, []byte("cd")), serverFrame(true, OpContinuation, []byte("ef"))),
		cat(serverFrame(true, OpPong, nil), serverFrame(true, OpClose, ClosePayload(1000, "bye"))),
		serverFrame(true, OpBinary, make([]byte, 70000)),
		{0x82, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, // 2^64-1 bytes
		{0x82, 0x7e, 0x00, 0x05, 'a'},                                // short 16-bit length
		{0xc2, 0x00},                                                 // RSV1
		{0x82, 0x85, 1, 2, 3, 4, 'a', 'b', 'c', 'd', 'e'},            // masked by the server
		{0x09, 0x00},             // fragmented ping
		{0x89, 0x7e, 0x00, 0x7e}, // 126-byte ping
		{0x80, 0x01, 'x'},        // continuation first
		{0x83, 0x00},             // opcode 3
		cat(serverFrame(false, OpText, []byte("a")), serverFrame(true, OpBinary, []byte("b"))),
	}
}

type fuzzMsg struct {
	op Op
	p  string
}

// feedPieces feeds stream in pieces cut where cuts says, stopping at the
// first error.
func feedPieces(r *Reader, stream []byte, cuts []byte) ([]fuzzMsg, error) {
	var out []fuzzMsg
	fn := func(op Op, p []byte) error {
		out = append(out, fuzzMsg{op, string(p)})
		return nil
	}
	for len(stream) > 0 {
		n := len(stream)
		if len(cuts) > 0 {
			n = min(n, 1+int(cuts[0]))
			cuts = cuts[1:]
		}
		if err := r.Feed(stream[:n], fn); err != nil {
			return out, err
		}
		stream = stream[n:]
	}
	return out, nil
}

// FuzzReader feeds any server stream whole and in pieces: no panic; the
// same messages in the same order and the same error either way; payloads
// within the limit, control payloads within 125 bytes, only known opcodes
// delivered; after a clean whole feed the reader holds at most an
// unfinished frame and message; and the messages, framed again, read back
// the same.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzFrames() {
		f.Add(s, []byte{0, 1, 2, 3}, uint16(0))
		f.Add(s, []byte{}, uint16(100))
	}
	f.Fuzz(func(t *testing.T, stream, cuts []byte, limit uint16) {
		max := int(limit) // 0: the 1 MiB default
		whole := Reader{Max: max}
		msgs, err := feedPieces(&whole, stream, nil)
		pieces := Reader{Max: max}
		msgs2, err2 := feedPieces(&pieces, stream, cuts)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("whole: %v; in pieces: %v", err, err2)
		}
		if len(msgs) != len(msgs2) {
			t.Fatalf("whole: %d messages; in pieces: %d", len(msgs), len(msgs2))
		}
		for i := range msgs {
			if msgs[i] != msgs2[i] {
				t.Fatalf("message %d: %v whole, %v in pieces", i, msgs[i], msgs2[i])
			}
		}
		for _, m := range msgs {
			switch {
			case len(m.p) > whole.max():
				t.Fatalf("%d-byte payload over the %d limit", len(m.p), whole.max())
			case m.op.control() && len(m.p) > 125:
				t.Fatalf("%d-byte control payload", len(m.p))
			case m.op != OpText && m.op != OpBinary && m.op != OpClose && m.op != OpPing && m.op != OpPong:
				t.Fatalf("opcode %d delivered", m.op)
			}
		}
		if err != nil {
			if whole.part != nil || pieces.part != nil {
				t.Fatal("a failed reader keeps a partial frame")
			}
			return
		}
		if len(whole.part) > len(stream) || len(whole.msg) > whole.max() {
			t.Fatalf("reader keeps %d+%d bytes of a %d-byte stream", len(whole.part), len(whole.msg), len(stream))
		}
		var again []byte
		for _, m := range msgs {
			again = append(again, serverFrame(true, m.op, []byte(m.p))...)
		}
		back, err := feedPieces(&Reader{Max: max}, again, nil)
		if err != nil || len(back) != len(msgs) {
			t.Fatalf("reframed: %d of %d messages, %v", len(back), len(msgs), err)
		}
		for i := range back {
			if back[i] != msgs[i] {
				t.Fatalf("reframed message %d: %v, want %v", i, back[i], msgs[i])
			}
		}
		// An error from the callback stops the feed and comes back as is.
		if len(msgs) > 0 {
			stop := errors.New("stop")
			calls := 0
			err := (&Reader{Max: max}).Feed(stream, func(Op, []byte) error { calls++; return stop })
			if err != stop || calls != 1 {
				t.Fatalf("callback error: %v after %d calls", err, calls)
			}
		}
	})
}

// FuzzFirstMessage splits any start of a stream: no panic; a first message
// is a whole text or binary one, the rest is the stream's tail, and a Reader
// fed the same bytes delivers that message first.
func FuzzFirstMessage(f *testing.F) {
	for _, s := range fuzzFrames() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		op, payload, rest, ok, err := FirstMessage(b)
		if !ok {
			if payload != nil || rest != nil {
				t.Fatalf("not ok (%v) with a payload or rest", err)
			}
			return
		}
		if err != nil || (op != OpText && op != OpBinary) || len(payload) > 1<<20 {
			t.Fatalf("op %d, %d bytes, %v", op, len(payload), err)
		}
		size := len(b) - len(rest)
		if !bytes.Equal(rest, b[size:]) || size < len(payload)+2 || !bytes.Equal(payload, b[size-len(payload):size]) {
			t.Fatalf("rest %d, payload %d of %d bytes", len(rest), len(payload), len(b))
		}
		var first *fuzzMsg
		(&Reader{}).Feed(b[:size], func(o Op, p []byte) error {
			if first == nil {
				first = &fuzzMsg{o, string(p)}
			}
			return nil
		})
		if first == nil || *first != (fuzzMsg{op, string(payload)}) {
			t.Fatalf("reader's first message %v, FirstMessage's %d %q", first, op, payload)
		}
	})
}

// acceptMark in a fuzzed answer is replaced by the accept key the request
// calls for, so that answers that are valid upgrades stay reachable.
const acceptMark = "@ACCEPT@"

// FuzzHandshake answers the client's upgrade request with any bytes: no
// panic and no hang; a refusal is a HandshakeError of another status with at
// most 4 KiB of body; an accepted upgrade was answered 101, and what it
// returns is part of the answer (the bytes buffered past its head).
func FuzzHandshake(f *testing.F) {
	ok := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + acceptMark + "\r\n\r\n"
	f.Add([]byte(ok))
	f.Add([]byte(ok + string(serverFrame(true, OpText, []byte(`{"errCode":0}`)))))
	f.Add([]byte(strings.Replace(ok, "Connection: Upgrade", "Connection: keep-alive, Upgrade", 1)))
	f.Add([]byte(strings.Replace(ok, "\r\n\r\n", "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n", 1)))
	f.Add([]byte(strings.Replace(ok, acceptMark, "wrong", 1)))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n{\"errCode\":1502,\"errMsg\":\"TokenInvalid\"}"))
	f.Add([]byte("HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 101\r\n\r\n"))
	f.Add([]byte("HTTP/1.0 500 x\r\n\r\n" + strings.Repeat("z", 5000)))
	f.Add([]byte("garbage\r\n\r\n"))
	f.Add([]byte{})
	u, _ := url.Parse("ws://127.0.0.1:1/path?sendID=u1&token=t")
	f.Fuzz(func(t *testing.T, answer []byte) {
		client, server := net.Pipe()
		defer client.Close()
		sent := make(chan []byte, 1)
		go func() {
			defer server.Close()
			req, err := http.ReadRequest(bufio.NewReader(server))
			if err != nil {
				sent <- nil
				return
			}
			a := append([]byte{}, bytes.ReplaceAll(answer, []byte(acceptMark), []byte(acceptKey(req.Header.Get("Sec-WebSocket-Key"))))...)
			sent <- a
			server.Write(a)
		}()
		start := time.Now()
		rest, err := Handshake(context.Background(), client, u, 2*time.Second)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("handshake took %v", d)
		}
		client.Close()
		a := <-sent
		if a == nil {
			t.Fatal("the client's request did not parse")
		}
		var he *HandshakeError
		switch {
		case errors.As(err, &he):
			if he.Status == http.StatusSwitchingProtocols || len(he.Body) > 4096 {
				t.Fatalf("refusal %d with %d bytes", he.Status, len(he.Body))
			}
		case err == nil:
			// rest: what the client's buffer held past the answer's head.
			if len(rest) > 1024 || !bytes.Contains(a, rest) {
				t.Fatalf("accepted %q, rest %q", a, rest)
			}
			resp, rerr := http.ReadResponse(bufio.NewReader(bytes.NewReader(a)), nil)
			if rerr != nil || resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("accepted an answer that is not a 101: %v", rerr)
			}
		}
	})
}

// TestFuzzSeeds checks the seeds are what they claim: the first five are
// clean streams, the sixth too long, the seventh unfinished, the others
// each bad.
func TestFuzzSeeds(t *testing.T) {
	for i, s := range fuzzFrames() {
		if _, err := feedPieces(&Reader{}, s, nil); (err == nil) != (i < 5 || i == 6) {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}
