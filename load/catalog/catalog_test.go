package catalog

import (
	"os"
	"testing"
)

// Every scenario says what it reproduces, its sizes, and the protocol it
// runs over against the reference target: what `make scenarios` lists.
func TestEveryScenarioListsItsSeedSizesAndProtocol(t *testing.T) {
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir("../..")
	names, err := Names()
	if err != nil || len(names) == 0 {
		t.Fatalf("scenarios: %v %v", names, err)
	}
	for _, n := range names {
		info, err := Read(n)
		if err != nil {
			t.Fatal(err)
		}
		if info.Title == "" || info.Default == "" || info.Seed == "" {
			t.Errorf("%s: title %q, default size %q, SCALE=1 %q: its header needs a first line and a `// size: … | SCALE=1: …` line",
				n, info.Title, info.Default, info.Seed)
		}
		if _, err := info.DefaultProtocol("openim", []string{"openim", "wukongim"}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	room := Info{Name: "wildfire/chatroom1k", Protocols: []string{"wukongim"}}
	if p, err := room.DefaultProtocol("openim", []string{"openim", "wukongim"}); p != "wukongim" || err != nil {
		t.Errorf("a chatroom against the reference target: %q %v", p, err)
	}
	if _, err := room.DefaultProtocol("openim", []string{"openim"}); err == nil {
		t.Error("a chatroom against a target speaking only openim was accepted")
	}
	if p, _ := (Info{Name: "wukongim/receive"}).DefaultProtocol("openim", []string{"openim"}); p != "openim" {
		t.Errorf("WuKongIM's receive test against a real OpenIM: %q", p)
	}
}

func TestNearestNameIsAMisspellingOnly(t *testing.T) {
	known := []string{"openim/test1", "openim/hold", "wukongim/send"}
	for in, want := range map[string]string{"openim/tset1": "openim/test1", "wukongim/sned": "wukongim/send", "openim/hodl": "openim/hold", "fanout": ""} {
		if got, _ := Nearest(in, known); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
