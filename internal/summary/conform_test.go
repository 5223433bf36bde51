package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validate answers as a JSON Schema validator given the published schema
// does: over a summary with every pointer, list and map filled, and every
// way of breaking it at each place (a field removed, nulled, made a string,
// a fraction, an array or an object; a field added), the two agree.
func TestValidateIsTheSchemas(t *testing.T) {
	raw, err := Schema(nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("summary.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("summary.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schemaSays := func(b []byte) bool {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		return err == nil && sch.Validate(v) == nil
	}
	var s Summary
	fill(reflect.ValueOf(&s).Elem())
	s.Normalize()
	full, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(full); err != nil || !schemaSays(full) {
		t.Fatalf("a full summary: %v, schema %v", err, schemaSays(full))
	}
	var tree any
	if err := json.Unmarshal(full, &tree); err != nil {
		t.Fatal(err)
	}
	cases, refused := 0, 0
	for _, path := range paths(tree, nil) {
		for _, change := range []any{"remove", nil, "x", 1.5, []any{}, map[string]any{}, "add"} {
			var m any
			_ = json.Unmarshal(full, &m)
			if !mutate(m, path, change) {
				continue
			}
			b, _ := json.Marshal(m)
			ours, theirs := Validate(b) == nil, schemaSays(b)
			if ours != theirs {
				t.Errorf("at %v, %v: Validate says %v, the schema %v (%v)", path, change, ours, theirs, Validate(b))
			}
			cases++
			if !ours {
				refused++
			}
		}
	}
	t.Logf("%d cases, %d refused", cases, refused)
	if cases < 500 || refused < cases/2 {
		t.Fatalf("%d cases, %d refused: too few to tell", cases, refused)
	}
	if Validate(append(full, []byte(` {}`)...)) == nil {
		t.Error("data after the object validated")
	}
}

// fill gives every pointer a value, every list one item and every map one
// key, so that every type the summary holds appears in its JSON.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type() == rawMessage {
			v.SetBytes([]byte(`{"any":1}`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		v.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), e)
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(2)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(2)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	}
}

// paths lists every place in a decoded JSON tree: object keys and array
// indexes, the root's own children first.
func paths(v any, at []any) [][]any {
	var out [][]any
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := append(append([]any{}, at...), k)
			out = append(out, p)
			out = append(out, paths(c, p)...)
		}
	case []any:
		for i, c := range x {
			p := append(append([]any{}, at...), i)
			out = append(out, p)
			out = append(out, paths(c, p)...)
		}
	}
	return out
}

// mutate applies change at path: "remove" deletes an object's key, "add"
// puts an unknown key beside it, anything else replaces the value.
func mutate(root any, path []any, change any) bool {
	parent := root
	for _, step := range path[:len(path)-1] {
		switch k := step.(type) {
		case string:
			parent = parent.(map[string]any)[k]
		case int:
			parent = parent.([]any)[k]
		}
	}
	switch k := path[len(path)-1].(type) {
	case string:
		m := parent.(map[string]any)
		switch change {
		case "remove":
			delete(m, k)
		case "add":
			m[k+"_not_in_schema"] = 1
		default:
			m[k] = change
		}
	case int:
		a := parent.([]any)
		switch change {
		case "remove", "add":
			return false
		default:
			a[k] = change
		}
	default:
		panic(fmt.Sprint(k))
	}
	return true
}
