package runner

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/imbench/imbench/load/openim"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/scenarios/lib"
)

// imbench.d.ts must declare what the module exports, and the fields of the
// objects that cross to JS, no more and no less.
func TestTypeDeclarationsMatchTheModule(t *testing.T) {
	raw, err := os.ReadFile("../imbench.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	dts, env, ok := strings.Cut(string(raw), "declare module 'imbench/env'")
	if !ok {
		t.Fatal("no declaration of 'imbench/env'")
	}
	if js, d := matches(lib.EnvJS, `(?m)^export function (\w+)\(`), matches(env, `(?m)^\s*export function (\w+)\(`); !equal(js, d) {
		t.Errorf("env.js exports %v, .d.ts declares %v", sorted(js), sorted(d))
	}
	exported := Exported
	declared := matches(dts, `(?m)^\s*export function (\w+)\(`)
	if !equal(exported, declared) {
		t.Errorf("exports %v, .d.ts declares %v", sorted(exported), sorted(declared))
	}
	for iface, v := range map[string]any{
		"IntegrationOptions": plan.Integration{}, "Plan": PlanHandle{},
		"WorkloadOptions": plan.Workload{}, "Pace": plan.Pace{}, "Presence": plan.Presence{}, "Stage": plan.Stage{}, "HubsClass": plan.Hubs{},
		"OpenIMOptions": openim.Options{}, "ScenarioOptions": ScenarioOptions{}, "LimitOptions": LimitOptions{},
	} {
		body := block(t, dts, iface)
		fields := matches(body, `(?m)^\s*(?:/\*\*.*\*/\s*)?(?:readonly )?(\w+)\??:`)
		var tags []string
		typ := reflect.TypeOf(v)
		for i := 0; i < typ.NumField(); i++ {
			tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("js"), ",")
			if tag == "" { // types JS hands over as JSON
				tag, _, _ = strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			}
			if tag != "" && tag != "-" {
				tags = append(tags, tag)
			}
		}
		if !equal(tags, fields) {
			t.Errorf("%s: Go has %v, .d.ts has %v", iface, sorted(tags), sorted(fields))
		}
	}
}

func block(t *testing.T, src, iface string) string {
	i := strings.Index(src, "interface "+iface+" {")
	if i < 0 {
		i = strings.Index(src, "interface "+iface+" extends ")
	}
	if i < 0 {
		t.Fatalf("interface %s not declared", iface)
	}
	j := strings.Index(src[i:], "\n  }")
	return src[i : i+j]
}

func matches(s, re string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

func sorted(a []string) []string { b := append([]string(nil), a...); sort.Strings(b); return b }

func equal(a, b []string) bool { return reflect.DeepEqual(sorted(a), sorted(b)) }

// Each class kind's interface lists its own fields and extends Pace and
// Presence, as its Go struct embeds them.
func TestClassDeclarationsMatchTheKinds(t *testing.T) {
	raw, err := os.ReadFile("../imbench.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	for iface, v := range map[string]any{"GroupsClass": plan.Groups{}, "PairsClass": plan.Pairs{}, "ChatroomClass": plan.Chatroom{}, "OnlineClass": plan.Online{}} {
		body := block(t, string(raw), iface)
		fields := matches(body, `(?m)^\s*(?:/\*\*.*\*/\s*)?(?:readonly )?(\w+)\??:`)
		var tags []string
		typ := reflect.TypeOf(v)
		for i := 0; i < typ.NumField(); i++ {
			if typ.Field(i).Anonymous {
				continue
			}
			tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			tags = append(tags, tag)
		}
		if !equal(tags, fields) {
			t.Errorf("%s: Go has %v, .d.ts has %v", iface, sorted(tags), sorted(fields))
		}
		embeds := []string{}
		for i := 0; i < typ.NumField(); i++ {
			if typ.Field(i).Anonymous {
				embeds = append(embeds, typ.Field(i).Name)
			}
		}
		sort.Strings(embeds)
		want := "interface " + iface + " {"
		if len(embeds) > 0 {
			want = "interface " + iface + " extends " + strings.Join(embeds, ", ") + " {"
		}
		if !strings.Contains(string(raw), want) {
			t.Errorf("%s: want %q", iface, want)
		}
	}
}
