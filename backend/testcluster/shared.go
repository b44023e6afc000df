package testcluster

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// shared is a package's one control plane.
var shared struct {
	mu      sync.Mutex
	inMain  bool
	opts    Options
	started bool
	cluster *Cluster
	err     error
}

// Main runs a package's tests and then stops its shared control plane (if
// a test started one with Shared). Call it from TestMain; it exits.
func Main(m *testing.M, opts Options) {
	os.Exit(RunShared(m, opts))
}

// RunShared is Main without the exit, for a TestMain that does more.
func RunShared(m *testing.M, opts Options) int {
	shared.mu.Lock()
	shared.inMain, shared.opts = true, opts
	shared.mu.Unlock()

	code := m.Run()

	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testcluster: stopping the shared control plane: %v\n", err)
			code = 1
		}
		shared.cluster = nil
	}
	return code
}

// Shared returns the package's control plane, starting it on first use with
// the options given to Main. Tests share it: use a Namespace each, and
// change CRDs only in tests that do not run in parallel.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	checkName(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.inMain {
		t.Fatal("testcluster.Shared needs testcluster.Main (or RunShared) in the package's TestMain, which stops the control plane")
	}
	if !shared.started {
		shared.started = true
		shared.cluster, shared.err = Launch(shared.opts)
		if shared.err == nil {
			c := shared.cluster
			t.Logf("shared control plane up in %v, CRDs installed in %v",
				c.StartTime.Round(time.Millisecond), c.CRDTime.Round(time.Millisecond))
		}
	}
	if shared.err != nil {
		skipOrFail(t, shared.err)
	}
	return shared.cluster
}
