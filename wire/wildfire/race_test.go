//go:build race

package wildfire

// raceEnabled: the race detector changes allocation counts.
const raceEnabled = true
