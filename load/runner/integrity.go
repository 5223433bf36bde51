package runner

import (
	"maps"
	"slices"
)

// IntegrityThresholds are the thresholds every run has, whatever its file
// says: a delivery owed and lost, late, unchecked or corrupted, a send
// the server never answered, or a run that kept less than 90 % of its
// plan's pace (send_pace: it did not put out the load it claims to have
// tested), fails the run (exit 99). A workload relaxes
// one by naming it in its own thresholds ({ unanswered: ['count<=10'] });
// a name with a tag filter (lost{conv_type:group}) adds to the default,
// it does not replace it. -no-thresholds turns them off with the rest.
var IntegrityThresholds = map[string]Expressions{
	"lost":       {"count==0"},
	"late":       {"count==0"},
	"unchecked":  {"count==0"},
	"corrupted":  {"count==0"},
	"unanswered": {"count==0"},
	"send_pace":  {"value>=0.9"},
}

// effectiveThresholds are the workload's thresholds and, for each
// integrity count it does not name, the default; implicit says which names
// came from the defaults.
func effectiveThresholds(own map[string]Expressions) (all map[string]Expressions, implicit map[string]bool) {
	all = maps.Clone(own)
	if all == nil {
		all = map[string]Expressions{}
	}
	implicit = map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(IntegrityThresholds)) {
		if _, named := all[name]; !named {
			all[name] = slices.Clone(IntegrityThresholds[name])
			implicit[name] = true
		}
	}
	return all, implicit
}
