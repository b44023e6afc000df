package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"k8s.io/klog/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/livedescribe"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/keymap"
	"github.com/driftdeck/driftdeck/ui"
	"github.com/driftdeck/driftdeck/ui/cli"
)

// The in-process run mirrors ui/cli: the same pump interval, clock tick and
// first-list wait as the binary's TUI.
const (
	pumpInterval = 150 * time.Millisecond
	clockTick    = 5 * time.Second
	firstWait    = 800 * time.Millisecond
	screenW      = 120
	screenH      = 40
)

// envExecTime carries the parent's clock reading just before it started this
// process, so start-up is timed from the exec.
const envExecTime = "DRIFTDECK_BENCH_EXEC_NS"

type childOpts struct {
	// startOnly stops after the full screen: a sample of start-up alone.
	startOnly  bool
	kubeconfig string
	// contexts are the kubeconfig's contexts to watch ("": its current
	// one); unreachable those of them expected never to answer.
	contexts, unreachable string
	units                 int
	keys                  int
	keyRate               float64
	idle                  time.Duration
	profileDir            string
}

// childResult is what the in-process run reports to the parent.
type childResult struct {
	Units int
	// From the exec of this process.
	ModelComplete time.Duration // every watch delivered its first list
	FirstFrame    time.Duration // the first frame drawn, whatever it shows
	FirstUnits    int           // units in that first frame
	FullScreen    time.Duration // the first frame showing every unit
	StartCPU      time.Duration // CPU used until then

	PeakRSS       uint64 // VmHWM at the full screen
	RSSComplete   uint64 // VmRSS at the full screen
	RSSAfterGC    memory // after a forced GC (memory returned to the OS)
	HeapInuseGC   uint64 // runtime HeapInuse after that GC
	HeapAllocFull uint64 // HeapAlloc at the full screen, before the GC

	IdleCPU    float64 // % of one core
	IdleFor    time.Duration
	IdleFrames int
	// IdleBatches: the model batches among IdleFrames (a stuck rule's
	// text turning, a reconnect), the others the clock's.
	IdleBatches int
	// IdleCollections: the collector's cycles in the idle window (the
	// runtime forces one two minutes after the last unless it rests).
	IdleCollections uint64

	KeyHandle, KeyCPU, KeyLatency, Batch, BatchCPU stats
	// ByLabel are the keys' Update + View and CPU times per kind of key.
	ByLabel map[string]labelStats
	// Tree are the same keys in the tree view (every parent open), typed
	// after them while the changes still stream in.
	Tree       treeStats
	KeysSent   int
	PeakRSSEnd uint64

	FilterPrefixes []time.Duration // "/", then each typed character
	FilterText     string
	Sorts          []sortTime

	// Synced is, per reachable context, when its every first list was in.
	Synced map[string]time.Duration
	// Goroutines and Sockets are counted at the full screen, Before ones
	// before any context was added.
	Goroutines, GoroutinesBefore int
	Sockets                      int
	HeapInuseBefore              uint64 // after a GC, before any context was added
}

type labelStats struct{ Handle, CPU stats }

type treeStats struct {
	Handle, CPU, Latency stats
	ByLabel              map[string]labelStats
}

type sortTime struct {
	Mode string
	Took time.Duration
}

// runChild is the measured process: it starts driftdeck's model and UI in
// process against the cluster and reports figures as JSON on stdout. It
// talks with the parent by lines: it prints "started" once the screen is
// full, then "churn" and waits for "go" before the keystrokes, and prints
// "stop" and waits for "stopped" after them.
func runChild(o childOpts) error {
	execNS, _ := strconv.ParseInt(os.Getenv(envExecTime), 10, 64)
	t0 := time.Unix(0, execNS)
	if execNS == 0 {
		t0 = time.Now()
	}
	cli.TuneGC() // the binary's collector setting
	// As the binary does: client-go's logs would only add noise.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	stopProfile, err := startCPUProfile(o.profileDir, "start.cpu.pprof")
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	flags := kube.NewFlags()
	flags.KubeConfig, flags.Context = o.kubeconfig, o.contexts
	names, err := kube.ContextNames(flags)
	if err != nil {
		return err
	}
	res := childResult{Units: o.units, GoroutinesBefore: runtime.NumGoroutine()}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	res.HeapInuseBefore = ms.HeapInuse
	cfg := &config.Config{}
	f := fleet.New(fleet.Options{Thresholds: cfg.StuckThresholds()})
	// As the TUI does: every context connects on its own, retried in the
	// background while it cannot be reached.
	for _, n := range names {
		c, err := kube.Connect(flags, n)
		if err != nil {
			return err
		}
		f.AddRetrying(ctx, c, "")
	}
	synced := watchSynced(ctx, f, reachable(names, o.unreachable))
	auditDir, err := os.MkdirTemp("", "driftdeck-bench-audit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(auditDir)
	backend, err := newBackend(f, auditDir)
	if err != nil {
		return err
	}
	// ui/cli's runTUI: wait a moment for the first lists, then open the
	// screen with what is there.
	select {
	case <-synced.all:
	case <-time.After(firstWait):
	}
	f.Store.Tick()
	initial, _ := f.Store.Flush()
	app := ui.New(ui.Options{Backend: backend, Keys: keymap.Default(), Theme: cfg.Theme, Initial: initial, Context: ctx})

	l := newLoop(app)
	full := make(chan time.Time, 1)
	want := fmt.Sprintf("%d units", o.units)
	first := true
	l.setWatch(func(screen string, at time.Time) {
		if first {
			first = false
			res.FirstFrame = at.Sub(t0)
			res.FirstUnits = len(initial.Units)
		}
		if strings.Contains(screen, want) {
			select {
			case full <- at:
			default:
			}
		}
	})
	rest := cli.RestGCWhileTheModelHolds(cli.GCRestAfter) // as the binary's collector rests
	defer rest.Stop()
	l.filter = rest.Typing
	stop := make(chan struct{})
	defer close(stop)
	go l.run(stop)
	l.send(tea.WindowSizeMsg{Width: screenW, Height: screenH}, kindOther)
	l.exec(app.Init())
	go f.Store.Pump(ctx, pumpInterval, clockTick, rest.Watching(func(b store.Batch) { l.send(ui.BatchMsg(b), kindBatch) }))

	var at time.Time
	select {
	case at = <-full:
	case <-time.After(5 * time.Minute):
		return fmt.Errorf("no frame showed %q within 5 minutes (store has %d units)", want, f.Store.Len())
	}
	res.FullScreen = at.Sub(t0)
	<-synced.all
	res.Synced = map[string]time.Duration{}
	for n, t := range synced.at {
		res.Synced[n] = t.Sub(t0)
		res.ModelComplete = max(res.ModelComplete, t.Sub(t0))
	}
	_, res.Sockets = countThreadsAndSockets("self")
	res.Goroutines = runtime.NumGoroutine()
	l.setWatch(nil)
	if cpu, err := cpuTime("self"); err == nil {
		res.StartCPU = cpu
	}
	stopProfile()
	fmt.Println("started") // the parent reads what serving the start cost the API server
	if o.startOnly {
		return json.NewEncoder(os.Stdout).Encode(res)
	}

	// Memory with the model complete, then after a forced GC that returns
	// freed memory to the OS.
	m, err := readMemory("self")
	if err != nil {
		return err
	}
	res.PeakRSS, res.RSSComplete = m.HWM, m.RSS
	runtime.ReadMemStats(&ms)
	res.HeapAllocFull = ms.HeapAlloc
	debug.FreeOSMemory()
	runtime.ReadMemStats(&ms)
	res.HeapInuseGC = ms.HeapInuse
	if m, err = readMemory("self"); err != nil {
		return err
	}
	res.RSSAfterGC = m
	if o.profileDir != "" {
		if err := writeHeapProfile(filepath.Join(o.profileDir, "model.heap.pprof")); err != nil {
			return err
		}
	}

	// Idle: the fleet watched, nothing changing.
	time.Sleep(2 * time.Second)
	l.take()
	stopIdleProfile, err := startCPUProfile(o.profileDir, "idle.cpu.pprof")
	if err != nil {
		return err
	}
	cycles := gcCycles()
	if res.IdleCPU, err = idleCPU("self", o.idle); err != nil {
		return err
	}
	stopIdleProfile()
	idle := l.take()
	res.IdleFor, res.IdleFrames, res.IdleBatches, res.IdleCollections = o.idle, idle.frames, len(idle.batch), gcCycles()-cycles

	// Keystrokes while the parent streams status changes in.
	parent := bufio.NewScanner(os.Stdin)
	if err := handshake(parent, "churn", "go"); err != nil {
		return err
	}
	l.take()
	stopKeysProfile, err := startCPUProfile(o.profileDir, "keys.cpu.pprof")
	if err != nil {
		return err
	}
	res.KeysSent = typeKeys(l, keyCycle, o.keys, o.keyRate)
	rec := l.take()
	res.KeyHandle, res.KeyCPU = summarize(rec.keyHandle), summarize(rec.keyCPU)
	res.KeyLatency, res.Batch, res.BatchCPU = summarize(rec.keyLatency), summarize(rec.batch), summarize(rec.batchCPU)
	res.ByLabel = byLabel(rec)
	// The tree of the ApplicationSets, every parent open: t, then Z.
	l.do(key("t"))
	l.do(key("Z"))
	l.take()
	res.KeysSent += typeKeys(l, treeKeyCycle, o.keys/2, o.keyRate)
	rec = l.take()
	res.Tree = treeStats{Handle: summarize(rec.keyHandle), CPU: summarize(rec.keyCPU),
		Latency: summarize(rec.keyLatency), ByLabel: byLabel(rec)}
	stopKeysProfile()
	l.do(key("t")) // the flat list again for the filter and sort figures
	if err := handshake(parent, "stop", "stopped"); err != nil {
		return err
	}

	// Filter typing and sorting on the full fleet, once the last changes
	// have landed.
	time.Sleep(time.Second)
	res.FilterText = filterText
	res.FilterPrefixes, res.Sorts = filterAndSort(l)
	if m, err = readMemory("self"); err == nil {
		res.PeakRSSEnd = m.HWM
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func byLabel(rec recording) map[string]labelStats {
	out := map[string]labelStats{}
	for label, lb := range rec.byLabel {
		out[label] = labelStats{Handle: summarize(lb.handle), CPU: summarize(lb.cpu)}
	}
	return out
}

// syncWatch tells when each context had every first list in.
type syncWatch struct {
	all chan struct{} // closed once every context is in
	at  map[string]time.Time
}

// watchSynced polls the store's context states (as the TUI's first wait
// does) until every one of names has synced.
func watchSynced(ctx context.Context, f *fleet.Fleet, names []string) *syncWatch {
	w := &syncWatch{all: make(chan struct{}), at: map[string]time.Time{}}
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for len(w.at) < len(names) {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, st := range f.Store.Status() {
				if _, done := w.at[st.Context]; !done && st.Synced && slices.Contains(names, st.Context) {
					w.at[st.Context] = time.Now()
				}
			}
		}
		close(w.all)
	}()
	return w
}

// reachable is names without those in the comma-separated unreachable.
func reachable(names []string, unreachable string) []string {
	skip := strings.Split(unreachable, ",")
	var out []string
	for _, n := range names {
		if !slices.Contains(skip, n) {
			out = append(out, n)
		}
	}
	return out
}

func handshake(parent *bufio.Scanner, say, want string) error {
	fmt.Println(say)
	if !parent.Scan() {
		return fmt.Errorf("parent closed the pipe before %q", want)
	}
	if got := strings.TrimSpace(parent.Text()); got != want {
		return fmt.Errorf("parent said %q, want %q", got, want)
	}
	return nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// benchBackend is the backend the binary's TUI uses (ui/cli's service): the
// action executor and the describer on the fleet's clusters. Methods the
// binary wires from elsewhere come from the embedded, unset ui.Backend one
// level down; none of the keys measured reaches them.
type benchBackend struct {
	*actions.Executor
	*livedescribe.Describer
	elsewhere
}

type elsewhere struct{ ui.Backend }

// ChangeRequests: the measured fleet has none (the binary lists them from
// a watch the bench does not start), and every batch asks.
func (benchBackend) ChangeRequests() []changereq.Listed { return nil }

func newBackend(f *fleet.Fleet, auditDir string) (*benchBackend, error) {
	log, err := audit.Open(filepath.Join(auditDir, "audit.log"))
	if err != nil {
		return nil, err
	}
	return &benchBackend{
		Executor:  &actions.Executor{Cluster: f.Cluster, Audit: log, Settle: 3 * time.Second},
		Describer: &livedescribe.Describer{Cluster: f.Cluster, Updates: f.Updates},
	}, nil
}

// startCPUProfile profiles the CPU into dir/name until the returned stop is
// called; without a dir it does nothing.
func startCPUProfile(dir, name string) (stop func(), err error) {
	if dir == "" {
		return func() {}, nil
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
