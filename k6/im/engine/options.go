package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DecodeOptions copies a target's options into dst, a protocol's options
// struct with json tags, refusing names it has no field for: a misspelt
// option is an error, not silently ignored.
func DecodeOptions(system string, opts map[string]any, dst any) error {
	if len(opts) == 0 {
		return nil
	}
	raw, err := json.Marshal(opts)
	if err != nil {
		return fmt.Errorf("%s options: %w", system, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("%s options: %s", system, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}
