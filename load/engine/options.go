package engine

import (
	"fmt"

	"github.com/imbench/imbench/load/strictjson"
)

// DecodeOptions copies a target's options into dst, a protocol's options
// struct with json tags, refusing names it has no field for: a misspelt
// option is an error, not silently ignored.
func DecodeOptions(system string, opts map[string]any, dst any) error {
	if len(opts) == 0 {
		return nil
	}
	if err := strictjson.Convert(opts, dst); err != nil {
		return fmt.Errorf("%s options: %w", system, err)
	}
	return nil
}
