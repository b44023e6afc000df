// Package demo is the embedded demo control plane: an in-process Kubernetes
// API (client-go's fake clients over the inmem store) seeded with a realistic
// estate of Argo CD Applications and Pulumi Stacks, driven by the simulated
// controllers of package sim, with the situations driftdeck exists for staged
// and visible at once: a sync stuck for 25 minutes, one held by a sync
// window, a failing app, a prune waiting for confirmation, self-heal
// reverting a hand edit, a Stack locked by a dead run, a wedged Stack, a
// commit waiting for approval, drift that keeps appearing, and Flux
// Kustomizations, HelmReleases and tofu-controller Terraforms in every state
// driftdeck tells apart (a plan waiting for approval, a held state lock,
// retries exhausted, a dependency or source not ready, ...).
package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/demo/inmem"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/sim"
)

// ContextName is the demo cluster's context name.
const ContextName = "demo"

// Timings pace the simulated controllers; zero fields take the defaults.
type Timings struct {
	SyncDuration   time.Duration // an Argo CD sync (4s)
	SelfHealDelay  time.Duration // before self-heal reverts a hand edit (5s)
	WindowRecheck  time.Duration // how often a window-held sync is looked at (5s)
	UpdateDuration time.Duration // a Pulumi update (6s)
	Backoff        time.Duration // first retry wait after a failed update (10s, as upstream)
	DriftEvery     time.Duration // between staged drifts (12s); negative stages none
	LogEvery       time.Duration // between the lines of a followed pod log (700ms)
}

func (t Timings) withDefaults() Timings {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&t.SyncDuration, 4*time.Second)
	def(&t.SelfHealDelay, 5*time.Second)
	def(&t.WindowRecheck, 5*time.Second)
	def(&t.UpdateDuration, 6*time.Second)
	def(&t.Backoff, 10*time.Second)
	def(&t.DriftEvery, 12*time.Second)
	def(&t.LogEvery, 700*time.Millisecond)
	return t
}

// Options tune the demo.
type Options struct {
	Timings Timings
	// Seed makes the staged drifts reproducible; 0 takes one from the clock.
	Seed uint64
	// StateDir keeps the demo's objects between runs (StateFile), so that a
	// runbook's commands can be walked through one after the other; Keep
	// saves them. Empty: every start is the estate afresh.
	StateDir string
	// OnError hears of the simulated controllers' failed writes (retried);
	// nil drops them.
	OnError func(error)
}

// Start builds the demo control plane and runs its controllers until ctx
// ends. It returns at once with the cluster, ready to be watched.
func Start(ctx context.Context, opts Options) (*kube.Cluster, error) {
	t := opts.Timings.withDefaults()
	now := time.Now()
	// temporary is removed at the end; "" when the backend is kept.
	dir, temporary, err := backendDir(opts.StateDir, now)
	if err != nil {
		return nil, fmt.Errorf("demo state backend: %w", err)
	}
	diy := diyBackend{dir: dir}
	sources := filepath.Join(dir, "sources")
	if err := writeSources(sources); err != nil {
		_ = os.RemoveAll(temporary)
		return nil, err
	}
	e := newEstate(now, diy)
	e.argo(t)
	e.live()
	e.stacks()
	e.flux()
	e.trees()
	e.events()
	e.logPods()

	kept := sortedResources(e.objects)
	if opts.StateDir != "" {
		if err := loadKept(StateFile(opts.StateDir), dir, e.objects); err != nil {
			_ = os.RemoveAll(temporary)
			return nil, err
		}
	}

	srv := inmem.New(slices.Concat(resources, liveResources)...)
	if err := srv.Seed(crdGVR, crds()...); err != nil {
		_ = os.RemoveAll(temporary)
		return nil, err
	}
	for gvr, objs := range e.objects {
		if err := srv.Seed(gvr, objs...); err != nil {
			_ = os.RemoveAll(temporary)
			return nil, fmt.Errorf("seeding the demo: %w", err)
		}
	}
	dyn, kc := srv.Dynamic(fleet.Watched()...), srv.Kube()
	answerAccess(kc)
	e.pods = func(ctx context.Context, ns, name string) bool {
		_, err := kc.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil
	}

	argo := sim.NewArgo(dyn, sim.ArgoOptions{
		SyncDuration: t.SyncDuration, SelfHealDelay: t.SelfHealDelay, WindowRecheck: t.WindowRecheck,
		Git: e.git, Behavior: e.behavior, Events: kc, OnError: opts.OnError,
	})
	operator := sim.NewPulumi(dyn, sim.PulumiOptions{
		UpdateDuration: t.UpdateDuration, Backoff: t.Backoff,
		Git: e.git, Outcome: e.outcome, Events: kc, OnError: opts.OnError,
	})
	go func() { _ = argo.Run(ctx) }()
	appSets := sim.NewAppSet(dyn, sim.AppSetOptions{Events: kc, OnError: opts.OnError})
	go func() { _ = appSets.Run(ctx) }()
	fluxControllers := sim.NewFlux(dyn, sim.FluxOptions{Events: kc, OnError: opts.OnError})
	go func() { _ = operator.Run(ctx) }()
	go func() { _ = fluxControllers.Run(ctx) }()
	seed := opts.Seed
	if seed == 0 {
		seed = uint64(now.UnixNano())
	}
	go newDrifter(e, argo, seed, t.DriftEvery, opts.OnError).run(ctx)
	cfg := &rest.Config{Host: "https://demo.driftdeck.invalid"}
	c := kube.NewClusterFromClients(ContextName, cfg, dyn, kc, "default")
	podLogs, err := e.seedLogs(ctx, kc, t.LogEvery)
	if err != nil {
		_ = os.RemoveAll(temporary)
		return nil, fmt.Errorf("seeding the demo's pods: %w", err)
	}
	if err := e.seedStackSecrets(ctx, kc); err != nil {
		_ = os.RemoveAll(temporary)
		return nil, fmt.Errorf("seeding the Stacks' Secrets: %w", err)
	}
	if err := seedReleaseSecrets(ctx, kc); err != nil {
		_ = os.RemoveAll(temporary)
		return nil, fmt.Errorf("seeding the Helm release: %w", err)
	}
	if err := appSetsSettled(ctx, dyn, appSets, 30*time.Second); err != nil {
		_ = os.RemoveAll(temporary)
		return nil, fmt.Errorf("starting the demo: %w", err)
	}
	registerLogs(ctx, c, podLogs)
	c.PodLogs = podLogs.openFor(c)
	if opts.StateDir != "" {
		keepers.mu.Lock()
		keepers.list = append(keepers.list, &keeper{path: StateFile(opts.StateDir), backend: dir, dyn: dyn, resources: kept})
		keepers.mu.Unlock()
	}
	go housekeeping(ctx, temporary, addPrograms(c, dir, sources), dyn, kc)
	return c, nil
}

// actionRecorder is what client-go's fakes have: they record every request.
type actionRecorder interface{ ClearActions() }

// housekeeping forgets the requests the fake clients record (they would
// grow without bound in a long demo) and, at the end, forgets the demo's
// programs and removes the temporary state backend ("" when it is kept).
func housekeeping(ctx context.Context, temporary string, forgetPrograms func(), fakes ...actionRecorder) {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			forgetPrograms()
			if temporary != "" {
				_ = os.RemoveAll(temporary)
			}
			return
		case <-tick.C:
			for _, f := range fakes {
				f.ClearActions()
			}
		}
	}
}

func (e *estate) behavior(namespace, name string) sim.AppBehavior {
	return e.appBehavior[namespace+"/"+name]
}

// outcome decides how the operator's updates end: the locked Stack fails on
// its lock while the lock file exists, the stalled one always fails.
func (e *estate) outcome(ctx context.Context, stack *unstructured.Unstructured, _ string) sim.UpdateOutcome {
	switch stack.GetNamespace() + "/" + stack.GetName() {
	case infraNS + "/" + stackHung:
		current := objread.New(stack.Object).Str("status", "currentUpdate", "name")
		return e.hungOutcome(current, e.pods(ctx, infraNS, stackHung+"-workspace-0"))
	case infraNS + "/" + stackLocked:
		if msg := e.diy.lockMessage(); msg != "" {
			return sim.UpdateOutcome{FailWith: "error: " + msg, FailReason: "Unknown"}
		}
	case ReadOnlyNamespace + "/" + stackStalled:
		return sim.UpdateOutcome{FailWith: costReportsFailure}
	}
	return sim.UpdateOutcome{}
}

// stateDirs are the state backends the demos of this process made; the
// command line removes them before exiting (Cleanup), since a cancelled
// context alone does not get a goroutine run before the process ends.
var stateDirs dirSet

type dirSet struct {
	mu   sync.Mutex
	dirs []string
}

func (d *dirSet) add(dir string) {
	d.mu.Lock()
	d.dirs = append(d.dirs, dir)
	d.mu.Unlock()
}

// Cleanup waits for the root modules' background work to end (the
// commands' contexts are over), removes every demo state backend this
// process created and forgets its keepers (Keep runs before it).
func Cleanup() {
	WaitBackground()
	stateDirs.mu.Lock()
	defer stateDirs.mu.Unlock()
	for _, dir := range stateDirs.dirs {
		_ = os.RemoveAll(dir)
	}
	stateDirs.dirs = nil
	keepers.mu.Lock()
	keepers.list = nil
	keepers.mu.Unlock()
}
