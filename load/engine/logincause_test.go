package engine

import (
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
)

// A login's request the server never answered in time (an OpenIM login
// sends requests after its handshake) is "no answer", not "other".
func TestCauseOfNamesTheCulprit(t *testing.T) {
	for _, c := range []struct {
		err  error
		want LoginCause
	}{
		{fmt.Errorf("%w: no answer to request 1001 within 10s", ErrUnanswered), LoginNoAnswer},
		{fmt.Errorf("login: %w", ErrLoginNoAnswer), LoginNoAnswer},
		{fmt.Errorf("login: %w", ErrLoginRefused), LoginRefused},
		{fmt.Errorf("read: %w", io.EOF), LoginClosed},
		{errors.New("something else"), LoginOther},
		{refusedDial(t), LoginConnRefused},
	} {
		if got := CauseOf(c.err); got != c.want {
			t.Errorf("CauseOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// refusedDial is a real dial of a port nothing listens on (a gateway
// restarting): connection refused.
func refusedDial(t *testing.T) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = net.Dial("tcp", addr)
	if err == nil {
		t.Fatal("a dial of a closed port succeeded")
	}
	return fmt.Errorf("login of u1: %w", err)
}
