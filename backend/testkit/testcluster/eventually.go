package testcluster

import (
	"testing"
	"time"
)

// Eventually polls ok until it holds, failing the test naming what did not
// happen once within has passed: tests wait for what the program promises,
// not for a fixed time.
func Eventually(t testing.TB, within time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
