package summary

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The published schema is the one the types make: a field added to the
// summary without regenerating docs/summary.schema.json (make generate)
// fails here.
func TestThePublishedSchemaIsTheTypes(t *testing.T) {
	docs, err := FieldDocs(".")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Schema(docs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", SchemaFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the summary's types make (%v): run make generate", SchemaFile, err)
	}
	if !strings.Contains(string(want), `"description": "Late were owed and not delivered by the end of the drain`) {
		t.Error("the schema lacks the fields' descriptions")
	}
}

// A normalized summary validates; a field missing, one unknown, or a null
// where the schema allows none does not.
func TestValidateRefusesAnotherShape(t *testing.T) {
	var s Summary
	s.Normalize()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(raw); err != nil {
		t.Fatalf("a normalized empty summary: %v", err)
	}
	var plain map[string]any
	if err := json.Unmarshal(raw, &plain); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(m map[string]any){
		"late missing":          func(m map[string]any) { delete(m["deliveries"].(map[string]any), "late") },
		"store_check missing":   func(m map[string]any) { delete(m["deliveries"].(map[string]any), "store_check") },
		"a field not in schema": func(m map[string]any) { m["messages"].(map[string]any)["made_up"] = 1 },
		"a null list":           func(m map[string]any) { m["warnings"] = nil },
		"a string count":        func(m map[string]any) { m["deliveries"].(map[string]any)["lost"] = "0" },
	} {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		change(m)
		bad, _ := json.Marshal(m)
		if err := Validate(bad); err == nil {
			t.Errorf("%s: validated", name)
		}
	}
	// A clean run's summary names the counts that are 0 and the check that
	// did not run.
	d := plain["deliveries"].(map[string]any)
	for _, f := range []string{"late", "lost_never_stored", "unchecked", "of_unanswered", "not_attempted"} {
		if v, ok := d[f]; !ok || v != float64(0) {
			t.Errorf("deliveries.%s: %v", f, v)
		}
	}
	if c := d["store_check"].(map[string]any); c["ran"] != false || c["skipped"] != NothingOwed {
		t.Errorf("store_check: %v", c)
	}
	if plain["integrity"] != nil {
		t.Errorf("integrity with nothing owed: %v", plain["integrity"])
	}
}

// imbench.d.ts declares what handleSummary receives field by field, as the
// schema has it: a field added without make generate fails here.
func TestTheDeclaredSummaryIsTheSchema(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "..", SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := TypeScript(schema)
	if err != nil {
		t.Fatal(err)
	}
	dts, err := os.ReadFile(filepath.Join("..", "..", "load", "imbench.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dts), ts) {
		t.Fatal("load/imbench.d.ts does not declare the summary the schema describes: run make generate")
	}
	for _, want := range []string{"    messages: MessagesSummary;\n", "    planned_per_second: number[];\n", "    integrity: number | null;\n",
		"    latency_ms: { ack: LatencySummary; e2e: LatencySummary };\n", "    thresholds: Threshold[];\n", "  export interface DeliveriesSummary {\n"} {
		if !strings.Contains(ts, want) {
			t.Errorf("the declarations lack %q", want)
		}
	}
}
