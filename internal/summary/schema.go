package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// SchemaFile is where the schema is published, from the repository's root.
const SchemaFile = "docs/summary.schema.json"

// Schema is summary.json's JSON Schema (draft 2020-12), made from the
// types the runner writes: every field is required, none other is allowed,
// and only a pointer may be null. docs maps a type's field ("Type.Field") to
// its description; nil leaves descriptions out (they do not change what
// validates).
func Schema(docs map[string]string) ([]byte, error) {
	g := schemaGen{defs: map[string]any{}, docs: docs}
	root := g.object(reflect.TypeFor[Summary]())
	// Summary.MarshalJSON writes integrity as null where nothing was owed.
	root["properties"].(map[string]any)["integrity"] = nullable(map[string]any{"type": "number"}, g.doc("Summary", "Integrity"))
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = "https://github.com/imbench/imbench/" + SchemaFile
	root["title"] = "imbench summary.json"
	root["description"] = "Every figure of one run (or of a split run's merged parts), as docs/verifier.md and docs/running.md describe them."
	root["$defs"] = g.defs
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(root)
	return b.Bytes(), err
}

type schemaGen struct {
	defs map[string]any
	docs map[string]string
}

func (g schemaGen) doc(typ, field string) string { return g.docs[typ+"."+field] }

var (
	rawMessage = reflect.TypeFor[json.RawMessage]()
	timeType   = reflect.TypeFor[time.Time]()
)

// of is the schema of a value of type t.
func (g schemaGen) of(t reflect.Type) map[string]any {
	switch {
	case t == rawMessage:
		return map[string]any{}
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(g.of(t.Elem()), "")
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Array:
		return map[string]any{"type": "array", "items": g.of(t.Elem()), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		if _, ok := g.defs[t.Name()]; !ok {
			g.defs[t.Name()] = nil // taken: a type that refers to itself ends here
			g.defs[t.Name()] = g.object(t)
		}
		return map[string]any{"$ref": "#/$defs/" + t.Name()}
	}
	panic(fmt.Sprintf("summary schema: no JSON type for %s", t))
}

// object is a struct's schema: its JSON fields, every one required.
func (g schemaGen) object(t reflect.Type) map[string]any {
	props, required := map[string]any{}, []string{}
	for f := range t.Fields() {
		name, ok := jsonName(f)
		if !ok {
			continue
		}
		p := g.of(f.Type)
		if d := g.doc(t.Name(), f.Name); d != "" && t.Name() != "" {
			p = withDescription(p, d)
		}
		props[name] = p
		required = append(required, name)
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// jsonName is the name f goes by in JSON; false where it is left out.
func jsonName(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch {
	case !f.IsExported() || name == "-":
		return "", false
	case name == "":
		return f.Name, true
	}
	return name, true
}

func nullable(s map[string]any, description string) map[string]any {
	out := map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	if description != "" {
		out["description"] = description
	}
	return out
}

func withDescription(s map[string]any, d string) map[string]any {
	out := map[string]any{"description": d}
	for k, v := range s {
		if k == "$ref" { // a $ref beside other keywords is fine in 2020-12, but keep it apart for old tools
			return map[string]any{"allOf": []any{s}, "description": d}
		}
		out[k] = v
	}
	return out
}

// Encode is summary.json as the writers write it: normalized, indented,
// and checked against the schema. The bytes come back whatever the check
// found, so that a run keeps its figures; the error says where the shape
// went wrong.
func Encode(s *Summary) ([]byte, error) {
	s.Normalize()
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(raw, '\n'), Validate(raw)
}
