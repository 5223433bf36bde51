package main

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
	names, err := scenarios()
	if err != nil || len(names) == 0 {
		t.Fatalf("scenarios: %v %v", names, err)
	}
	for _, n := range names {
		info, err := readScenario(n)
		if err != nil {
			t.Fatal(err)
		}
		if info.Title == "" || info.Default == "" || info.Seed == "" {
			t.Errorf("%s: title %q, default size %q, SCALE=1 %q: its header needs a first line and a `// size: … | SCALE=1: …` line",
				n, info.Title, info.Default, info.Seed)
		}
		if _, err := info.defaultProtocol("openim", []string{"openim", "wukongim"}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	room := scenarioInfo{Name: "wildfire/chatroom1k", Protocols: []string{"wukongim"}}
	if p, err := room.defaultProtocol("openim", []string{"openim", "wukongim"}); p != "wukongim" || err != nil {
		t.Errorf("a chatroom against the reference target: %q %v", p, err)
	}
	if _, err := room.defaultProtocol("openim", []string{"openim"}); err == nil {
		t.Error("a chatroom against a target speaking only openim was accepted")
	}
	if p, _ := (scenarioInfo{Name: "wukongim/receive"}).defaultProtocol("openim", []string{"openim"}); p != "openim" {
		t.Errorf("WuKongIM's receive test against a real OpenIM: %q", p)
	}
}
