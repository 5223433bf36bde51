package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/plan"
)

type fakeOptions struct {
	Token string `json:"token"`
}

type fakeProtocol struct{ opts fakeOptions }

func (f *fakeProtocol) Preflight(context.Context) error { return nil }
func (f *fakeProtocol) Driver(*plan.Plan, time.Duration) (Driver, error) {
	return nil, nil
}

func init() {
	Register(Spec{Name: "fake", Endpoints: []string{"tcp"}, PingLimit: time.Minute, Carries: []plan.ConvKind{plan.Single},
		Open: func(t Target) (Protocol, error) {
			p := &fakeProtocol{}
			return p, DecodeOptions("fake", t.Options, &p.opts)
		}})
	Register(Spec{Name: "fakegroups", Endpoints: []string{"tcp"}, PingLimit: time.Minute, Carries: []plan.ConvKind{plan.Single, plan.Group},
		Open: func(Target) (Protocol, error) { return &fakeProtocol{}, nil }})
}

func TestTargetsAreCheckedAgainstTheirProtocol(t *testing.T) {
	ok := Target{System: "fake", Endpoints: map[string]string{"tcp": "tcp://127.0.0.1:5100"}, Options: map[string]any{"token": "x"}}
	spec, proto, err := ok.Open()
	if err != nil || spec.Name != "fake" || proto.(*fakeProtocol).opts.Token != "x" || ok.Name != "reference" {
		t.Fatalf("open: %v %+v", err, spec)
	}
	for name, c := range map[string]struct {
		t    Target
		want string
	}{
		"unknown protocol": {Target{System: "xmpp"}, `protocol "xmpp" is not supported (supported: fake`},
		"missing endpoint": {Target{System: "fake"}, `endpoint "tcp" is required`},
		"foreign endpoint": {Target{System: "fake", Endpoints: map[string]string{"tcp": "tcp://127.0.0.1:1", "ws": "ws://127.0.0.1:2"}}, `has no endpoint "ws"`},
		"remote":           {Target{System: "fake", Endpoints: map[string]string{"tcp": "tcp://127.0.0.1:1,tcp://10.0.0.1:1"}}, "outside 127.0.0.0/8"},
		"misspelt option":  {Target{System: "fake", Endpoints: map[string]string{"tcp": "tcp://127.0.0.1:1"}, Options: map[string]any{"tokn": "x"}}, `unknown field "tokn"`},
	} {
		if _, _, err := c.t.Open(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	remote := Target{System: "fake", AllowRemote: true, Endpoints: map[string]string{"tcp": "tcp://10.0.0.1:1"}}
	if _, _, err := remote.Open(); err != nil {
		t.Fatalf("allowRemote: %v", err)
	}
}

func TestAProtocolSaysWhatItCannotCarry(t *testing.T) {
	spec, _ := Lookup("fake")
	w := plan.Workload{Name: "w", Classes: nil}
	w.Classes = append(w.Classes, []byte(`{"kind":"groups","groups":1,"members":3,"allOnline":true,"rate":1,"messages":1}`))
	p, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.CanCarry(p); err == nil || err.Error() != "fake cannot carry group conversations (a groups class of the scenario): run it over fakegroups (PROTOCOL=fakegroups, on a target that speaks it), or leave that class out" {
		t.Fatalf("carry: %v", err)
	}
}
