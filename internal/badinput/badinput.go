// Package badinput marks an error as bad input: imbench refuses it in one
// line, before anything starts, and exits 2.
package badinput

import (
	"errors"
	"fmt"
)

// Error is bad input. errors.As finds it through any %w wrapping.
type Error struct{ error }

// Errorf is bad input with a message formatted as fmt.Errorf's.
func Errorf(format string, a ...any) error { return Error{fmt.Errorf(format, a...)} }

// Wrap marks err (a flag parser's, say) as bad input.
func Wrap(err error) error { return Error{err} }

// Is reports whether err is, or wraps, bad input.
func Is(err error) bool {
	var e Error
	return errors.As(err, &e)
}
