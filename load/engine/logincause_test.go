package engine

import (
	"errors"
	"fmt"
	"io"
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
	} {
		if got := CauseOf(c.err); got != c.want {
			t.Errorf("CauseOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
