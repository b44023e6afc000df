package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// unreachableContext is the context of the several-cluster run whose server
// never answers: nothing listens there.
const unreachableContext = "unreachable"

// clusterSize is one cluster's share of units in the one-cluster fleet's
// mix (5,000 : 1,000 : 700 : 300 : 200 of 7,200).
func clusterSize(units int) fleetSize {
	part := func(n int) int { return n * units / 7200 }
	s := fleetSize{apps: part(5000), stacks: part(1000), kustomizations: part(700), helmReleases: part(300), terraforms: part(200)}
	s.apps += units - s.units() // what the rounding left
	return s
}

// times scales a fleet size by n clusters.
func (s fleetSize) times(n int) fleetSize {
	return fleetSize{apps: s.apps * n, stacks: s.stacks * n, kustomizations: s.kustomizations * n, helmReleases: s.helmReleases * n,
		terraforms: s.terraforms * n, copies: n}
}

// multiCluster is one control plane of the several-cluster run.
type multiCluster struct {
	cp      *controlPlane
	context string
	cfg     *rest.Config // through the slow proxy for the slow one
	slow    bool
}

// multiReport is every figure of the several-cluster run.
type multiReport struct {
	report
	Clusters    []string // the reachable contexts, the slow one last
	PerCluster  fleetSize
	Latency     time.Duration
	Floors      [][]time.Duration // per sample, per cluster: its bare LISTs, made concurrently with the others'
	StartsMulti []childResult
}

// startsAtOnce bounds the control planes started together: twenty at once
// on two cores (load average 37) ran out of time installing their CRDs.
const startsAtOnce = 5

// runClusters is the several-cluster table: o.clusters control planes
// started (startsAtOnce at a time) and seeded at once, the last behind a
// slow proxy, and a context nothing answers; driftdeck on all of them at
// once beside the bare LISTs of the same objects made concurrently.
func runClusters(ctx context.Context, o options) (err error) {
	began := time.Now()
	klog.SetLogger(logr.Discard())
	per := clusterSize(o.clusterUnits)
	r := &multiReport{PerCluster: per, Latency: o.slowLatency}
	r.Size = per.times(o.clusters)
	r.noteMachineStart()
	root, err := testcluster.RepoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "driftdeck-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	logf("starting %d control planes, %d at a time", o.clusters, startsAtOnce)
	// The control planes inherit the environment as it is when they start;
	// what is started after them (driftdeck, the child) runs without the
	// limit.
	restore := restoreEnv("GOMEMLIMIT")
	defer restore()
	if o.serverMemLimit != "" {
		logf("the control planes run with GOMEMLIMIT=%s", o.serverMemLimit)
		if err := os.Setenv("GOMEMLIMIT", o.serverMemLimit); err != nil {
			return err
		}
	}
	t := time.Now()
	cps := make([]*controlPlane, o.clusters)
	errs := make([]error, o.clusters)
	var wg sync.WaitGroup
	starting := make(chan struct{}, startsAtOnce)
	for i := range cps {
		wg.Go(func() {
			starting <- struct{}{}
			defer func() { <-starting }()
			cps[i], errs[i] = startControlPlane(root, o.crds)
		})
	}
	wg.Wait()
	restore()
	defer func() {
		for _, cp := range cps {
			if cp != nil {
				err = errors.Join(err, cp.Stop())
			}
		}
	}()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	r.ControlPlaneStart, r.CRDs = time.Since(t), cps[0].CRDs

	logf("seeding %d units into each (%s)", per.units(), per.objects())
	t = time.Now()
	seeds := make([]seedResult, o.clusters)
	for i, cp := range cps {
		wg.Go(func() { seeds[i], errs[i] = seedFleet(ctx, cp, per, o.seed, time.Now()) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	r.Seed.Duration, r.Seed.How = time.Since(t), seeds[0].How
	for _, s := range seeds {
		r.Seed.Requests += s.Requests
	}

	clusters, kubeconfig, stopProxy, err := multiKubeconfig(cps, tmp, o.slowLatency)
	if err != nil {
		return err
	}
	defer stopProxy()
	var contexts []string
	for _, c := range clusters {
		contexts = append(contexts, c.context)
		r.Clusters = append(r.Clusters, c.context)
	}
	setup := measuredSetup{kubeconfig: kubeconfig, contexts: strings.Join(append(contexts, unreachableContext), ","),
		unreachable: unreachableContext, size: r.Size,
		churn: func() (churnGroup, error) {
			var g churnGroup
			for _, c := range clusters {
				rate, workers := max(o.churn/len(clusters), 1), churnWorkers
				if c.slow {
					// Enough patches in flight to keep the rate through
					// the proxy's round trip.
					workers = max(workers, rate*int((2*o.slowLatency+time.Second)/time.Second))
				}
				ch, err := startChurn(c.cfg, per, rate, workers)
				if err != nil {
					g.stop()
					return nil, err
				}
				g = append(g, ch)
			}
			return g, nil
		}}
	for _, cp := range cps {
		setup.serverPIDs = append(setup.serverPIDs, cp.APIServerPID)
	}
	if o.serve {
		logf("serving the seeded clusters until interrupted: KUBECONFIG=%s, --context %s", kubeconfig, setup.contexts)
		<-ctx.Done()
		return nil
	}

	for i := range max(o.starts, 1) {
		floors, err := concurrentFloor(ctx, clusters, per)
		if err != nil {
			return err
		}
		r.Floors = append(r.Floors, floors)
		res, _, err := runMeasured(ctx, o, setup, &r.report, true)
		if err != nil {
			return err
		}
		r.StartsMulti = append(r.StartsMulti, res)
		logf("start %d: slowest concurrent floor %v, every reachable context's model %v", i+1,
			slices.Max(floors).Round(time.Millisecond), res.ModelComplete.Round(time.Millisecond))
	}
	logf("running driftdeck in process on every context (idle %v, %d keys)", o.idle, o.keys)
	if r.Child, _, err = runMeasured(ctx, o, setup, &r.report, false); err != nil {
		return err
	}
	if !o.noBinary {
		logf("running the driftdeck binary on every context")
		r.measureBinary(binaryRun{bin: o.driftdeck, kubeconfig: kubeconfig, args: []string{"--context", setup.contexts},
			units: r.Size.units(), runs: max(o.starts, 1), idle: o.binaryIdle, load: setup.churn})
	}
	return r.finish(o, began, r.markdown)
}

// multiKubeconfig writes a kubeconfig with a context per control plane, the
// last one's through a slow proxy, and one whose server nothing answers.
func multiKubeconfig(cps []*controlPlane, dir string, latency time.Duration) ([]multiCluster, string, func(), error) {
	contexts := map[string]*rest.Config{}
	var clusters []multiCluster
	var proxy *slowProxy
	for i, cp := range cps {
		c := multiCluster{cp: cp, context: fmt.Sprintf("cluster-%d", i+1), cfg: cp.Config()}
		if i == len(cps)-1 && len(cps) > 1 {
			u, err := url.Parse(c.cfg.Host)
			if err != nil {
				return nil, "", nil, err
			}
			if proxy, err = startSlowProxy(u.Host, latency); err != nil {
				return nil, "", nil, err
			}
			u.Host = proxy.Addr()
			c.cfg.Host, c.context, c.slow = u.String(), c.context+"-slow", true
		}
		contexts[c.context] = c.cfg
		clusters = append(clusters, c)
	}
	// A port that was free a moment ago: connections are refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	dead := rest.CopyConfig(clusters[0].cfg)
	dead.Host = "https://" + ln.Addr().String()
	ln.Close()
	contexts[unreachableContext] = dead
	path := filepath.Join(dir, "kubeconfig-clusters")
	stop := func() {
		if proxy != nil {
			_ = proxy.Close()
		}
	}
	if err := testcluster.WriteKubeconfigContexts(path, clusters[0].context, contexts); err != nil {
		stop()
		return nil, "", nil, err
	}
	return clusters, path, stop, nil
}

// concurrentFloor makes every cluster's bare LISTs at once, all clusters
// together, and returns each cluster's wall time.
func concurrentFloor(ctx context.Context, clusters []multiCluster, per fleetSize) ([]time.Duration, error) {
	walls := make([]time.Duration, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() { walls[i], _, errs[i] = listAll(ctx, c.cfg, "", per) })
	}
	wg.Wait()
	return walls, errors.Join(errs...)
}

func (r *multiReport) rows() []row {
	n := len(r.Clusters)
	var slowest []time.Duration
	perFloor := make([][]time.Duration, n)
	for _, fs := range r.Floors {
		slowest = append(slowest, slices.Max(fs))
		for i, f := range fs {
			perFloor[i] = append(perFloor[i], f)
		}
	}
	floor, floorNote := spread(slowest)
	var models, fulls []time.Duration
	for _, s := range r.StartsMulti {
		models, fulls = append(models, s.ModelComplete), append(fulls, s.FullScreen)
	}
	model, modelNote := spread(models)
	full, fullNote := spread(fulls)
	units := r.Size.units()
	rows := []row{
		{fmt.Sprintf("%d control planes started, %d at a time (kube-apiserver + etcd each, CRDs installed)", n, startsAtOnce), secs(r.ControlPlaneStart), "s", "", ""},
		{fmt.Sprintf("seeding %d units into each, all at once (%d %s)", r.PerCluster.units(), r.Seed.Requests, r.Seed.How), secs(r.Seed.Duration), "s", "", ""},
	}
	for i, name := range r.Clusters {
		f, note := spread(perFloor[i])
		rows = append(rows, row{fmt.Sprintf("floor: %s's bare LISTs, made with every other cluster's", name) + note, secs(f), "s", ratio(f, floor), ""})
	}
	rows = append(rows, row{"SLOWEST CONCURRENT FLOOR (the slowest cluster's bare LISTs)" + floorNote, secs(floor), "s", "1.00x", ""})
	for i, name := range r.Clusters {
		var ds []time.Duration
		for _, s := range r.StartsMulti {
			ds = append(ds, s.Synced[name])
		}
		d, note := spread(ds)
		own, _ := spread(perFloor[i])
		rows = append(rows, row{fmt.Sprintf("[in-process] exec -> %s's model complete (vs its own floor: %s)", name, ratio(d, own)) + note,
			secs(d), "s", ratio(d, floor), ""})
	}
	c := r.Child
	reachable := max(n, 1)
	rows = append(rows,
		row{fmt.Sprintf("[in-process] exec -> complete model of every reachable cluster (%q never answers)", unreachableContext) + modelNote,
			secs(model), "s", ratio(model, floor), "<= 1.3x"},
		row{fmt.Sprintf("[in-process] exec -> first full screen (all %d units, %dx%d)", units, screenW, screenH) + fullNote, secs(full), "s", ratio(full, floor), ""},
		row{"[in-process] Go heap in use after GC (HeapInuse) / before any context", mb(c.HeapInuseGC) + " / " + mb(c.HeapInuseBefore), "MB", "", ""},
		row{"[in-process] per reachable context: heap (with its units), (HeapInuse after GC - before) / contexts",
			mb((c.HeapInuseGC - min(c.HeapInuseBefore, c.HeapInuseGC)) / uint64(reachable)), "MB", "", ""},
		row{"[in-process] bytes kept per unit (HeapInuse after GC / units)", fmt.Sprintf("%.0f", float64(c.HeapInuseGC)/float64(max(units, 1))), "B/unit", "", ""},
		row{fmt.Sprintf("[in-process] goroutines at the full screen / before any context (%d contexts)", n+1),
			fmt.Sprintf("%d / %d", c.Goroutines, c.GoroutinesBefore), "", "", ""},
		row{"[in-process] per context: goroutines, (at the full screen - before) / contexts",
			fmt.Sprintf("%.1f", float64(c.Goroutines-c.GoroutinesBefore)/float64(n+1)), "", "", ""},
		row{"[in-process] open sockets (connections) / per reachable context", fmt.Sprintf("%d / %.1f", c.Sockets, float64(c.Sockets)/float64(reachable)), "", "", ""},
		row{fmt.Sprintf("[in-process] CPU while idle (%v, %d contexts watched, %d frames, %d of them batches, %d collections)", c.IdleFor, n+1, c.IdleFrames, c.IdleBatches, c.IdleCollections), fmt.Sprintf("%.2f", c.IdleCPU), "% of a core", "", "< 0.5"},
	)
	rows = append(rows, r.keystrokeRows()...)
	switch b := r.Binary; {
	case b != nil:
		bfull, bfullNote := spread(b.FullScreen)
		rows = append(rows,
			row{fmt.Sprintf("[binary] TUI in a pty on every context: exec -> screen shows all %d units", units) + bfullNote, secs(bfull), "s", ratio(bfull, floor), ""},
			row{"[binary] TUI peak RSS (VmHWM) / RSS, 3 s after the full screen", mb(b.Memory.HWM) + " / " + mb(b.Memory.RSS), "MB", "", "< 100"},
			row{"[binary] TUI RSS then: private / the binary's mapped pages", mb(b.Memory.Anon) + " / " + mb(b.Memory.File), "MB", "", ""},
			row{"[binary] TUI threads / open sockets then", fmt.Sprintf("%d / %d", b.Threads, b.Sockets), "", "", ""},
		)
		rows = append(rows, binaryLoadIdleRows(b, "< 0.5")...)
	case r.BinaryError != "":
		rows = append(rows, row{"[binary] not measured: " + r.BinaryError, "", "", "", ""})
	}
	return rows
}

func (r *multiReport) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# driftdeck several-cluster benchmark\n\n")
	fmt.Fprintf(&b, "%d control planes of %s (%d units each, %d in all), CRDs: %s. %s reaches its cluster through a local proxy that delays every chunk by %v each way; %q names a server nothing listens on.\n",
		len(r.Clusters), r.PerCluster.objects(), r.PerCluster.units(), r.Size.units(), r.CRDs, r.Clusters[len(r.Clusters)-1], r.Latency, unreachableContext)
	fmt.Fprintf(&b, "[in-process]: driftdeck's own code on every context at once (fleet.New + AddRetrying per context as the TUI does, ui.New + Update/View at %dx%d) in a child process, timed from its exec; "+
		"start-up figures are medians of %d start-ups, each right after one sample of every cluster's bare LISTs made concurrently. [binary]: the built driftdeck binary on every context. "+
		"Ratios are to the median slowest concurrent floor.\n\n", screenW, screenH, len(r.StartsMulti))
	writeTable(&b, r.rows())
	r.writeMachine(&b)
	return b.String()
}

// restoreEnv returns a func that sets the variable back to what it is now.
func restoreEnv(name string) func() {
	v, set := os.LookupEnv(name)
	return func() {
		if set {
			_ = os.Setenv(name, v)
		} else {
			_ = os.Unsetenv(name)
		}
	}
}
