package main

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"
)

// A connection dialed and left unused for longer than a header timeout
// would allow still serves its first request: what OpenIM's SDK meets on
// open-im-server (its integration_test failed on EOF when the target
// closed such connections after 10 s).
func TestAPIServerKeepsAnUnusedConnection(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := apiServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	go srv.Serve(l)
	defer srv.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(11 * time.Second) // the 10 s the target once allowed, and a second
	if _, err := c.Write([]byte("POST /group/get_joined_group_list HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("the request on a connection idle since its accept: %v", err)
	}
	if resp.StatusCode != http.StatusTeapot {
		t.Fatalf("status %d", resp.StatusCode)
	}
}
