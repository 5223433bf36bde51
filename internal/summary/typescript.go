package summary

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// TypeScript declares summary.json's types for imbench.d.ts from its
// schema, field by field, each with its description: what handleSummary
// receives (with the run's thresholds as `thresholds`).
func TypeScript(schema []byte) (string, error) {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(tsBegin)
	if err := tsInterface(&b, "Summary", root, "summary.json as handleSummary receives it, with the run's thresholds"); err != nil {
		return "", err
	}
	defs, _ := root["$defs"].(map[string]any)
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d, _ := defs[n].(map[string]any)
		desc, _ := d["description"].(string)
		if err := tsInterface(&b, n, d, desc); err != nil {
			return "", err
		}
	}
	b.WriteString("  /** One threshold as checked: its metric, expression, the figure it read and whether it passed. */\n")
	b.WriteString("  export interface Threshold {\n    metric: string;\n    expr: string;\n    actual: number;\n    passed: boolean;\n" +
		"    /** no figure: a latency with no sample (passes, as in k6) */\n    absent?: boolean;\n" +
		"    /** imbench's own integrity threshold, which the scenario did not name */\n    implicit?: boolean;\n  }\n")
	b.WriteString(tsEnd)
	return b.String(), nil
}

// The lines that enclose the generated types in imbench.d.ts.
const (
	tsBegin = "  // Generated from docs/summary.schema.json by `make generate`; do not edit by hand.\n"
	tsEnd   = "  // End of the generated summary types.\n"
)

// SpliceTypeScript puts generated (TypeScript's) in place of what dts has
// between its markers.
func SpliceTypeScript(dts, generated string) (string, error) {
	i, j := strings.Index(dts, tsBegin), strings.Index(dts, tsEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("imbench.d.ts has no %q … %q lines to put the summary's types between", strings.TrimSpace(tsBegin), strings.TrimSpace(tsEnd))
	}
	return dts[:i] + generated + dts[j+len(tsEnd):], nil
}

func tsInterface(b *strings.Builder, name string, s map[string]any, desc string) error {
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return fmt.Errorf("%s: not an object with properties", name)
	}
	if desc != "" {
		fmt.Fprintf(b, "  /** %s */\n", tsComment(desc))
	}
	fmt.Fprintf(b, "  export interface %s {\n", name)
	fields, required := tsFields(props, s["required"])
	for _, f := range fields {
		p, _ := props[f].(map[string]any)
		if d, _ := p["description"].(string); d != "" {
			fmt.Fprintf(b, "    /** %s */\n", tsComment(d))
		}
		opt := "?"
		if slices.Contains(required, f) {
			opt = ""
		}
		fmt.Fprintf(b, "    %s%s: %s;\n", f, opt, tsType(p))
	}
	if name == "Summary" {
		b.WriteString("    /** the run's thresholds, as checked (handleSummary's, not summary.json's) */\n    thresholds: Threshold[];\n")
	}
	b.WriteString("  }\n")
	return nil
}

// tsType is the TypeScript type of a schema.
func tsType(s map[string]any) string {
	if ref, ok := s["$ref"].(string); ok {
		return strings.TrimPrefix(ref, "#/$defs/")
	}
	for _, k := range []string{"anyOf", "allOf"} {
		if alts, ok := s[k].([]any); ok {
			var ts []string
			for _, a := range alts {
				ts = append(ts, tsType(a.(map[string]any)))
			}
			sep := " | "
			if k == "allOf" {
				sep = " & "
			}
			return strings.Join(ts, sep)
		}
	}
	switch t := s["type"].(type) {
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, tsType(map[string]any{"type": x, "items": s["items"], "additionalProperties": s["additionalProperties"]}))
		}
		return strings.Join(ts, " | ")
	case string:
		switch t {
		case "integer", "number":
			return "number"
		case "string", "boolean", "null":
			return t
		case "array":
			if it, ok := s["items"].(map[string]any); ok {
				inner := tsType(it)
				if strings.ContainsAny(inner, "|&") {
					inner = "(" + inner + ")"
				}
				return inner + "[]"
			}
			return "unknown[]"
		case "object":
			if props, ok := s["properties"].(map[string]any); ok {
				return tsInline(props, s["required"])
			}
			if ap, ok := s["additionalProperties"].(map[string]any); ok {
				return "Record<string, " + tsType(ap) + ">"
			}
			return "Record<string, unknown>"
		}
	}
	return "unknown"
}

// tsInline is an object type written in place: { ack: LatencySummary; … }.
func tsInline(props map[string]any, req any) string {
	fields, required := tsFields(props, req)
	var parts []string
	for _, f := range fields {
		opt := "?"
		if slices.Contains(required, f) {
			opt = ""
		}
		parts = append(parts, f+opt+": "+tsType(props[f].(map[string]any)))
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// tsFields are an object's property names, sorted, and those required.
func tsFields(props map[string]any, req any) (fields, required []string) {
	if r, ok := req.([]any); ok {
		for _, x := range r {
			required = append(required, x.(string))
		}
	}
	for f := range props {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return fields, required
}

func tsComment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }
