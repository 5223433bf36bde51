//go:build race

package wukongim

// raceEnabled: the race detector changes allocation counts.
const raceEnabled = true
