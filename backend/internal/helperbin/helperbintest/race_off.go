//go:build !race

package helperbintest

const raceEnabled = false
