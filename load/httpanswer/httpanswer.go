// Package httpanswer tells an HTTP server's answer apart from a binary
// protocol's first frame: a login sent to an HTTP port by mistake is often
// answered "400 Bad Request" (when its bytes hold a newline) and a preflight
// should say so, not decode the 'H' as a frame type.
package httpanswer

import "bytes"

// StatusLine returns the first line of b when b begins as an HTTP/1.x
// response ("HTTP/1.1 400 Bad Request"), at most 80 bytes of it.
func StatusLine(b []byte) (string, bool) {
	if !bytes.HasPrefix(b, []byte("HTTP/1.")) {
		return "", false
	}
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b), true
}
