package runner

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/catalog"
	"github.com/imbench/imbench/load/engine"
)

// Resolved is what a run's scenario, target and protocol name.
type Resolved struct {
	Script   string // the scenario's file
	Target   profile.Profile
	Protocol string
	Spec     engine.Spec
}

// Resolve finds a scenario (a catalog name or a .js file), a target profile
// under targetsDir and the protocol to speak: the one asked, else the
// scenario's choice for that target. Every mistake is bad input, named
// with what is known.
//
// A scenario is named after the seed it reproduces; it runs over the
// protocols it names where it needs them (a chatroom), else that system's
// protocol where its target speaks it, else the target's own; or any
// protocol the target speaks (WuKongIM's receive test over OpenIM is a
// comparison of its own).
func Resolve(scenario, target, protocol, targetsDir string) (Resolved, error) {
	var r Resolved
	known, err := catalog.Names()
	if err != nil {
		return r, err
	}
	if scenario == "" {
		return r, badinput.Errorf("SCENARIO is required (known: %s)", strings.Join(known, ", "))
	}
	r.Script = catalog.Script(scenario)
	if catalog.IsScriptPath(scenario) {
		if _, err := os.Stat(r.Script); err != nil {
			return r, badinput.Errorf("scenario file %s: %v", r.Script, errors.Unwrap(err))
		}
	} else if !slices.Contains(known, scenario) {
		if near, ok := catalog.Nearest(scenario, known); ok {
			return r, badinput.Errorf("unknown scenario %q: did you mean %s? (make scenarios lists them)", scenario, near)
		}
		if len(known) == 0 {
			return r, badinput.Errorf("unknown scenario %q: no scenarios under load/scenarios here (run imbench from the repository's folder, or give a .js path)", scenario)
		}
		return r, badinput.Errorf("unknown scenario %q (known: %s)", scenario, strings.Join(known, ", "))
	}
	profiles, err := profile.Load(targetsDir)
	if err != nil {
		return r, err
	}
	p, ok := profiles[target]
	if !ok {
		return r, badinput.Errorf("unknown target %q (known: %s)", target, strings.Join(profile.Names(profiles), ", "))
	}
	info, err := catalog.Read(scenario)
	if err != nil {
		return r, err
	}
	if r.Protocol, err = info.DefaultProtocol(p.System, p.Speaks()); err != nil && protocol == "" {
		return r, badinput.Errorf("%v", err)
	}
	if protocol != "" {
		if len(info.Protocols) > 0 && !slices.Contains(info.Protocols, protocol) {
			return r, badinput.Errorf("%s runs only over %s (its // protocols: header), not %s", info.Name,
				strings.Join(info.Protocols, " or "), protocol)
		}
		r.Protocol = protocol
	}
	r.Spec, err = engine.Lookup(r.Protocol)
	if err != nil {
		return r, badinput.Errorf("%v", err)
	}
	if !slices.Contains(p.Speaks(), r.Protocol) {
		return r, badinput.Errorf("target %s speaks %s, not %s", p.Name, strings.Join(p.Speaks(), ", "), r.Protocol)
	}
	r.Target = p
	return r, nil
}
