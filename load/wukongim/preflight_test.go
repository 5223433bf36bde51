package wukongim

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
)

// A CONNECT sent to an HTTP port is answered "400 Bad Request" whenever its
// bytes hold a newline (a timestamp's byte may be one): the preflight names
// the HTTP answer, not a frame type read from its 'H'.
func TestPreflightNamesAnHTTPAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 512)
		c.Read(buf)
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"))
	}()
	cfg := Config{Version: 4}
	err = connackFrom(context.Background(), &url.URL{Scheme: "tcp", Host: ln.Addr().String()}, cfg)
	if err == nil || !strings.Contains(err.Error(), `a CONNECT was answered in HTTP ("HTTP/1.1 400 Bad Request"), not with a CONNACK`) {
		t.Fatalf("err = %v; want the HTTP answer named", err)
	}
}
