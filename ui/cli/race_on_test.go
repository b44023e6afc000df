//go:build race

package cli

// raceDetector: the race detector slows every step several times.
const raceDetector = true
