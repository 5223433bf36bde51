package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"reflect"
)

// Validate checks a summary.json against the schema: a field missing, one
// the schema does not have, or a null where it allows none is an error.
// It walks the JSON beside the types the schema is made from (Schema),
// keyword for keyword, rather than compiling the schema: a JSON Schema
// library's own metaschemas cost every run 1.7 MB of heap at start. The
// tests hold the two to the same answers.
func Validate(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("summary.json: data after its object")
	}
	if err := conform(v, reflect.TypeFor[Summary](), ""); err != nil {
		return fmt.Errorf("summary.json does not match %s: %v", SchemaFile, err)
	}
	return nil
}

// conform is whether v, decoded JSON, is what Schema says of type t; at is
// where v is, as a JSON pointer.
func conform(v any, t reflect.Type, at string) error {
	switch t {
	case rawMessage:
		return nil
	case timeType:
		return want[string](v, at, "a string")
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v == nil {
			return nil
		}
		return conform(v, t.Elem(), at)
	case reflect.Bool:
		return want[bool](v, at, "a boolean")
	case reflect.String:
		return want[string](v, at, "a string")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(json.Number); ok {
			if r, ok := new(big.Rat).SetString(string(n)); ok && r.IsInt() {
				return nil
			}
		}
		return mismatch(v, at, "an integer")
	case reflect.Float32, reflect.Float64:
		return want[json.Number](v, at, "a number")
	case reflect.Slice, reflect.Array:
		items, ok := v.([]any)
		if !ok {
			return mismatch(v, at, "an array")
		}
		if t.Kind() == reflect.Array && len(items) != t.Len() {
			return fmt.Errorf("%s: %d items, want %d", where(at), len(items), t.Len())
		}
		for i, x := range items {
			if err := conform(x, t.Elem(), fmt.Sprintf("%s/%d", at, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch(v, at, "an object")
		}
		for k, x := range m {
			if err := conform(x, t.Elem(), at+"/"+k); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		return conformObject(v, t, at)
	}
	return fmt.Errorf("%s: no JSON type for %s", where(at), t)
}

// conformObject is object's check: every field present, none other.
func conformObject(v any, t reflect.Type, at string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return mismatch(v, at, "an object")
	}
	known := map[string]bool{}
	for f := range t.Fields() {
		name, ok := jsonName(f)
		if !ok {
			continue
		}
		known[name] = true
		x, ok := m[name]
		if !ok {
			return fmt.Errorf("%s: %q missing", where(at), name)
		}
		if t == reflect.TypeFor[Summary]() && name == "integrity" {
			// Summary.MarshalJSON writes null where nothing was owed.
			if x == nil {
				continue
			}
			if err := want[json.Number](x, at+"/"+name, "a number"); err != nil {
				return err
			}
			continue
		}
		if err := conform(x, f.Type, at+"/"+name); err != nil {
			return err
		}
	}
	for k := range m {
		if !known[k] {
			return fmt.Errorf("%s: %q is not in the schema", where(at), k)
		}
	}
	return nil
}

func want[T any](v any, at, what string) error {
	if _, ok := v.(T); ok {
		return nil
	}
	return mismatch(v, at, what)
}

func mismatch(v any, at, what string) error {
	got := "null"
	switch v.(type) {
	case bool:
		got = "a boolean"
	case string:
		got = "a string"
	case json.Number:
		got = "a number"
	case []any:
		got = "an array"
	case map[string]any:
		got = "an object"
	}
	return fmt.Errorf("%s: %s, want %s", where(at), got, what)
}

func where(at string) string {
	if at == "" {
		return "/"
	}
	return at
}
