package engine

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/imbench/imbench/load/netloop"
)

func TestDropCauses(t *testing.T) {
	for err, want := range map[error]int{
		io.EOF: DropServerClosed,
		fmt.Errorf("read: %w", syscall.ECONNRESET):     DropServerClosed,
		netloop.ErrReadTimeout:                         DropHeartbeat,
		fmt.Errorf("gob: %w", errors.New("bad frame")): DropReadError,
	} {
		if got := DropCauseOf(err, false); got != want {
			t.Errorf("%v: cause %d, want %d", err, got, want)
		}
	}
	if DropCauseOf(io.EOF, true) != DropKicked {
		t.Error("a kick is a kick, however the connection then ended")
	}
}
