package summary

import "encoding/json"

// MarshalJSON writes the summary with its integrity null where no delivery
// was expected: a 0 would read as everything lost where nothing was owed
// (a holding run, a run of chatrooms, whose integrity is their own).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary // the same fields, without this method
	var integrity *float64
	if s.Deliveries.Expected > 0 {
		integrity = &s.Integrity
	}
	return json.Marshal(struct {
		plain
		Integrity *float64 `json:"integrity"` // shadows plain's
	}{plain(s), integrity})
}
