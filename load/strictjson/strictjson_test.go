package strictjson

import (
	"math"
	"testing"
)

type stage struct {
	Target float64 `json:"target"`
}

type class struct {
	Kind     string  `json:"kind"`
	Members  int     `json:"members"`
	BodySize int     `json:"bodySize"`
	Stages   []stage `json:"stages"`
}

// Misspelt, miscased and mistyped fields are refused in JSON's words.
func TestDecodeRefusesInJSONsWords(t *testing.T) {
	for raw, want := range map[string]string{
		`{"kind":"groups","bodysize":3}`:              `unknown field "bodysize": did you mean "bodySize"?`,
		`{"kind":"groups","stages":[{"Target":3}]}`:   `unknown field "stages[0].Target": did you mean "target"?`,
		`{"kind":"groups","members":"40"}`:            `field "members" takes a whole number, not a string`,
		`{"kind":"groups","stages":[{"target":"x"}]}`: `field "stages[0].target" takes a number, not a string`,
		`{"kind":"groups","members":2.5}`:             `field "members" takes a whole number, not 2.5`,
		`{"kind":"groups","member":3}`:                `unknown field "member"`,
	} {
		var c class
		if err := Decode([]byte(raw), &c); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", raw, err, want)
		}
	}
	var c class
	if err := Decode([]byte(`{"kind":"groups","members":40,"bodySize":64,"stages":[{"target":5}]}`), &c); err != nil || c.Members != 40 || c.Stages[0].Target != 5 {
		t.Fatalf("%+v %v", c, err)
	}
}

type presence struct {
	AllOnline bool `json:"allOnline"`
}

type pairs struct {
	presence
	Pairs int     `json:"pairs"`
	Rate  float64 `json:"rate"`
}

// Every field of the wrong kind is named, at once, by its JSON name: not
// the first alone, and not by the Go type it sits in (presence.allOnline).
func TestEveryTypeMistakeIsNamed(t *testing.T) {
	var p pairs
	err := Decode([]byte(`{"pairs":"ten","allOnline":"yes","rate":"fast"}`), &p)
	want := `field "allOnline" takes true or false, not a string; field "pairs" takes a whole number, not a string; field "rate" takes a number, not a string`
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
}

// A NaN or an infinity (Number('x') in a scenario) is named by its path,
// not left to the JSON encoder's "unsupported value".
func TestConvertNamesANonFiniteNumber(t *testing.T) {
	var dst map[string]any
	v := map[string]any{"name": "w", "classes": []any{map[string]any{"pairs": int64(2)}, map[string]any{"members": math.NaN()}}}
	if err := Convert(v, &dst); err == nil || err.Error() != `field "classes[1].members" is NaN: it takes a finite number` {
		t.Fatalf("%v", err)
	}
	if err := Convert(map[string]any{"rate": math.Inf(1)}, &dst); err == nil || err.Error() != `field "rate" is Infinity: it takes a finite number` {
		t.Fatalf("%v", err)
	}
}
