// Package strictjson decodes JSON refusing fields the destination does not
// have: a misspelt option is an error, not silently ignored.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Decode decodes raw into dst strictly; errors read without "json: ".
func Decode(raw []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// Convert re-decodes v (a value exported from JS, a map) into dst strictly.
func Convert(v any, dst any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return Decode(raw, dst)
}
