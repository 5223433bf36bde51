package engine

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
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
		{filesExhaustedDial(t), LoginOpenFiles},
		{fmt.Errorf("dial: %w", syscall.EADDRNOTAVAIL), LoginPorts},
	} {
		if got := CauseOf(c.err); got != c.want {
			t.Errorf("CauseOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// filesExhaustedDial is a real dial with this process's open files at
// their limit (ulimit -n): no socket to dial with.
func filesExhaustedDial(t *testing.T) error {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = 1 // below every descriptor a socket could get (the poller's is open already)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	_, err := net.Dial("tcp", "127.0.0.1:9")
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("a dial with every file open succeeded")
	}
	return fmt.Errorf("login of u1: %w", err)
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
