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
	// others are the package's further control planes, by name (SharedAs).
	others map[string]*sharedOther
}

// sharedOther is one further control plane of a package.
type sharedOther struct {
	cluster *Cluster
	err     error
}

// Main runs a package's tests, without the machine's own tofu or terraform
// on PATH (hideHostTofu), and then stops its shared control plane (if a
// test started one with Shared). Call it from TestMain; it exits.
func Main(m *testing.M, opts Options) {
	os.Exit(RunShared(m, opts))
}

// RunShared is Main without the exit, for a TestMain that does more.
func RunShared(m *testing.M, opts Options) int {
	shared.mu.Lock()
	shared.inMain, shared.opts = true, opts
	shared.mu.Unlock()

	links, err := hideHostTofu()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testcluster: keeping the machine's tofu off PATH: %v\n", err)
		return 1
	}
	defer os.RemoveAll(links)
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
	for name, o := range shared.others {
		if o.cluster != nil {
			if err := o.cluster.Stop(); err != nil {
				fmt.Fprintf(os.Stderr, "testcluster: stopping the shared control plane %s: %v\n", name, err)
				code = 1
			}
		}
	}
	shared.others = nil
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

// SharedAs returns the package's further control plane of that name,
// started on first use with opts and stopped with the package's one: for
// tests that need a second cluster (an Argo CD destination, other CRDs)
// without starting one each. Every call with a name must pass the same opts.
func SharedAs(t testing.TB, name string, opts Options) *Cluster {
	t.Helper()
	checkName(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.inMain {
		t.Fatal("testcluster.SharedAs needs testcluster.Main (or RunShared) in the package's TestMain, which stops the control plane")
	}
	o, ok := shared.others[name]
	if !ok {
		o = &sharedOther{}
		o.cluster, o.err = Launch(opts)
		if shared.others == nil {
			shared.others = map[string]*sharedOther{}
		}
		shared.others[name] = o
		if o.err == nil {
			t.Logf("shared control plane %s up in %v, CRDs installed in %v",
				name, o.cluster.StartTime.Round(time.Millisecond), o.cluster.CRDTime.Round(time.Millisecond))
		}
	}
	if o.err != nil {
		skipOrFail(t, o.err)
	}
	return o.cluster
}
