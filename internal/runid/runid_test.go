package runid

import (
	"strings"
	"testing"
)

func TestNewIsLegal(t *testing.T) {
	id := New()
	if err := Check(id); err != nil {
		t.Fatalf("New() = %q: %v", id, err)
	}
	if len(id) != len("20261121_184119_e42ee3") {
		t.Fatalf("New() = %q", id)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		id string
		ok bool
	}{
		{"20261127_054600_1b4c9c", true},
		{"mine_1", true},
		{"20261127-054600-1b4c9c", false}, // OpenIM refuses '-' in a user id
		{"a@b", false},                    // WuKongIM refuses '@'
		{"a|b", false},                    // the message body's separator
		{"", false},
		{strings.Repeat("x", MaxLength+1), false},
	} {
		if err := Check(c.id); (err == nil) != c.ok {
			t.Errorf("Check(%q) = %v, want ok %v", c.id, err, c.ok)
		}
	}
}
