package httpanswer

import "testing"

func TestStatusLine(t *testing.T) {
	for in, want := range map[string]string{
		"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\n400 Bad Request": "HTTP/1.1 400 Bad Request",
		"HTTP/1.0 404 Not Found\n": "HTTP/1.0 404 Not Found",
		"HTTP/1.1 200 OK":          "HTTP/1.1 200 OK",
	} {
		if got, ok := StatusLine([]byte(in)); !ok || got != want {
			t.Errorf("StatusLine(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "HTTP", "H\x02\x00", " \x00\x01", "HTTP/2 200"} {
		if got, ok := StatusLine([]byte(in)); ok {
			t.Errorf("StatusLine(%q) = %q, true; want not HTTP/1.x", in, got)
		}
	}
}
