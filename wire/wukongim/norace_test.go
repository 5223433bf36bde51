//go:build !race

package wukongim

const raceEnabled = false
