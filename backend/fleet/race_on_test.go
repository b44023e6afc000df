//go:build race

package fleet

// raceDetector: timings under the race detector say nothing of a user's.
const raceDetector = true
