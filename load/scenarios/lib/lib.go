// Package lib carries the scenarios' shared JavaScript to the runner, so
// that a scenario anywhere imports it by name: 'imbench/env' is env.js,
// 'imbench/scenario' scenario.js.
package lib

import _ "embed"

var (
	// EnvJS is env.js: the environment's knobs (planKnobs, sizeKnobs, count).
	//
	//go:embed env.js
	EnvJS string
	// ScenarioJS is scenario.js: the thresholds the catalog shares
	// (integrity, inOrder).
	//
	//go:embed scenario.js
	ScenarioJS string
)

// Modules are the shared files by the name a scenario imports them.
var Modules = map[string]string{"imbench/env": EnvJS, "imbench/scenario": ScenarioJS}
