// Package strictjson decodes JSON refusing fields the destination does not
// have: a misspelt option is an error, not silently ignored, and so is a
// field spelt in another case (Go's decoder would take "bodysize" for
// "bodySize"). Errors name the field and what it takes in JSON's words,
// not Go's types.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// Decode decodes raw into dst strictly; errors read without "json: ".
func Decode(raw []byte, dst any) error {
	if err := exactNames(raw, reflect.TypeOf(dst), ""); err != nil {
		return err
	}
	if bad := typeMistakes(raw, reflect.TypeOf(dst), "", nil); len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("field %q takes %s, not %s", te.Field, kindWords(te.Type), valueWords(te.Value))
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// Convert re-decodes v (a value exported from JS, a map) into dst strictly.
func Convert(v any, dst any) error {
	if at, what := nonFinite(v, ""); at != "" {
		return fmt.Errorf("field %q is %s: it takes a finite number", at, what)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return Decode(raw, dst)
}

// nonFinite finds the first NaN or infinity in a JavaScript value as
// exported (maps, slices, numbers), by its path ("classes[1].members"),
// for JSON has neither: Number('x') in a scenario gives NaN.
func nonFinite(v any, at string) (string, string) {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return at, "NaN"
		case math.IsInf(x, 0):
			return at, "Infinity"
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			path := k
			if at != "" {
				path = at + "." + k
			}
			if p, w := nonFinite(x[k], path); p != "" {
				return p, w
			}
		}
	case []any:
		for i, e := range x {
			if p, w := nonFinite(e, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p, w
			}
		}
	}
	return "", ""
}

// exactNames refuses an object key that matches a field of t only when
// case is ignored, naming the field's own spelling; it follows nested
// objects and lists of them.
func exactNames(raw []byte, t reflect.Type, at string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil // the decoder says what is wrong
		}
		for i, it := range items {
			if err := exactNames(it, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		fields := map[string]reflect.Type{}
		folded := map[string]string{}
		collect(t, fields, folded)
		for k, v := range obj {
			ft, ok := fields[k]
			if !ok {
				if name, near := folded[strings.ToLower(k)]; near {
					return fmt.Errorf("unknown field %q: did you mean %q?", join(at, k), name)
				}
				continue // unknown altogether: the decoder refuses it
			}
			if err := exactNames(v, ft, join(at, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// collect lists t's JSON field names, embedded structs' included.
func collect(t reflect.Type, fields map[string]reflect.Type, folded map[string]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collect(ft, fields, folded)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		name := tag
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
		folded[strings.ToLower(name)] = name
	}
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// kindWords is what a Go type takes, in JSON's words.
func kindWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, not negative"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// valueWords is a JSON value's kind as the decoder names it, in words.
func valueWords(v string) string {
	switch v {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "number":
		return "a number"
	}
	return v // a number that does not fit: "number -1"
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// typeMistakes lists every value of raw whose kind its field cannot take,
// each named by its path in the JSON's own names ("classes[0].allOnline"),
// so that a workload with three wrong fields hears of the three at once.
// A field that decodes itself (a duration given as "45s") is left to its
// own decoder.
func typeMistakes(raw []byte, t reflect.Type, at string, out []string) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(unmarshaler) || t.Implements(unmarshaler) || t.Kind() == reflect.Interface {
		return out
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return out
	}
	mistake := func(what string) []string {
		return append(out, fmt.Sprintf("field %q takes %s, not %s", at, kindWords(t), what))
	}
	switch c := raw[0]; t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if c != '{' || json.Unmarshal(raw, &obj) != nil {
			return mistake(jsonWords(raw))
		}
		fields := map[string]reflect.Type{}
		collect(t, fields, map[string]string{})
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ft, ok := fields[k]; ok {
				out = typeMistakes(obj[k], ft, join(at, k), out)
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if c != '{' || json.Unmarshal(raw, &obj) != nil {
			return mistake(jsonWords(raw))
		}
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if c != '[' || json.Unmarshal(raw, &items) != nil {
			return mistake(jsonWords(raw))
		}
		for i, it := range items {
			out = typeMistakes(it, t.Elem(), fmt.Sprintf("%s[%d]", at, i), out)
		}
	case reflect.Bool:
		if string(raw) != "true" && string(raw) != "false" {
			return mistake(jsonWords(raw))
		}
	case reflect.String:
		if c != '"' {
			return mistake(jsonWords(raw))
		}
	case reflect.Float32, reflect.Float64:
		if c != '-' && (c < '0' || c > '9') {
			return mistake(jsonWords(raw))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if c != '-' && (c < '0' || c > '9') {
			return mistake(jsonWords(raw))
		}
		var f float64
		if json.Unmarshal(raw, &f) == nil && (f != math.Trunc(f) || (f < 0 && t.Kind() >= reflect.Uint)) {
			return mistake(string(raw))
		}
	}
	return out
}

// jsonWords is a JSON value's kind, in words.
func jsonWords(raw []byte) string {
	switch raw[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case '[':
		return "a list"
	case '{':
		return "an object"
	}
	return "a number"
}
