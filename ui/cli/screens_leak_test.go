package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/leakcheck"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/ui"
)

// observed runs the workbench in a real Bubble Tea program and keeps the
// screen as it is after each message, for a test to wait on.
type observed struct {
	tea.Model
	screen  atomic.Pointer[string]
	changed chan struct{}
}

func (o *observed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := o.Model.Update(msg)
	o.Model = m
	s := ansi.Strip(m.View().Content)
	o.screen.Store(&s)
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return o, cmd
}

// workbench is driftdeck's workbench with its real backend, driven through
// a Bubble Tea program without a terminal.
type workbench struct {
	t   *testing.T
	p   *tea.Program
	obs *observed
	// ended is closed when the program stops; runErr is then why.
	ended  chan struct{}
	runErr error
}

// demoGlobals select the demo control plane.
func demoGlobals() *globals {
	return &globals{kube: kube.NewFlags(), demo: true, allNamespaces: true, in: strings.NewReader(""), out: io.Discard, errOut: io.Discard}
}

// startWorkbench runs the workbench on what g selects (call isolate first).
func startWorkbench(t *testing.T, g *globals) *workbench {
	ctx, cancel := context.WithCancel(context.Background())
	f, err := connect(ctx, g, model.DefaultThresholds, true)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := newService(ctx, g, f, &config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	settled(f, 1, time.Now().Add(5*time.Second)) // one context: the demo, or the test cluster
	f.Store.Tick()
	initial, _ := f.Store.Flush()
	obs := &observed{Model: ui.New(ui.Options{Backend: svc, Demo: g.demo, Initial: initial, Context: ctx, Logs: newLogService(g, f.Cluster, f.ArgoAPI, svc.trees.Destinations)}), changed: make(chan struct{}, 1)}
	// A panic in Update or View is not caught: it fails the test with its
	// stack instead of ending the program quietly.
	p := tea.NewProgram(obs, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutRenderer(),
		tea.WithWindowSize(160, 50), tea.WithoutSignalHandler(), tea.WithoutCatchPanics())
	go f.Store.Pump(ctx, pumpInterval, clockTick, func(b store.Batch) { p.Send(ui.BatchMsg(b)) })
	w := &workbench{t: t, p: p, obs: obs, ended: make(chan struct{})}
	go func() { defer close(w.ended); _, w.runErr = p.Run() }()
	// The demo's root modules' background work ends with ctx, as under
	// runTUI: waited for before the test's directories go, and so do the
	// previews closed mid-run (their CLI writes there too).
	t.Cleanup(func() {
		cancel()
		<-w.ended
		if !pulumirun.WaitRuns(time.Minute) {
			t.Error("a preview still runs a minute after the workbench quit")
		}
		demo.WaitBackground()
	})
	return w
}

// keys types each key (a name as the keymap spells it, or text).
func (w *workbench) keys(keys ...string) {
	for _, k := range keys {
		switch k {
		case "enter":
			w.p.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			w.p.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "tab":
			w.p.Send(tea.KeyPressMsg{Code: tea.KeyTab})
		default:
			for _, r := range k {
				w.p.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
	}
}

// waitFor waits until the screen holds every text.
func (w *workbench) waitFor(what string, texts ...string) {
	w.t.Helper()
	w.waitUntil(what, fmt.Sprintf("%q", texts), func(s string) bool { return containsAll(s, texts) })
}

// waitUntil waits until the screen is as shown says (told as want).
func (w *workbench) waitUntil(what, want string, shown func(screen string) bool) {
	w.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		s := w.obs.screen.Load()
		if s != nil && shown(*s) {
			return
		}
		select {
		case <-w.obs.changed:
		case <-time.After(50 * time.Millisecond):
		case <-w.ended:
			w.t.Fatalf("%s: the program ended (%v) before the screen showed %s", what, w.runErr, want)
		case <-timeout:
			got := "(nothing drawn)"
			if s != nil {
				got = *s
			}
			w.t.Fatalf("%s: the screen does not show %s after 30 s:\n%s\nthe program's loop:\n%s", what, want, got, loopStack())
		}
	}
}

// cursorOnARow reports whether the list's cursor is on a row (marked ">"):
// the keys that open a screen act on that row's unit.
func cursorOnARow(screen string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, ">") {
			return true
		}
	}
	return false
}

// loopStack is the stack of the goroutine running the program's loop (the
// one in the model's Update, or waiting for its next message), to tell a
// key never answered from a loop that hangs.
func loopStack() string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var loop []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "bubbletea/v2.(*Program).eventLoop") {
			loop = append(loop, g)
		}
	}
	if len(loop) == 0 {
		return "(no loop running)"
	}
	return strings.Join(loop, "\n\n")
}

func containsAll(s string, texts []string) bool {
	for _, t := range texts {
		if !strings.Contains(s, t) {
			return false
		}
	}
	return true
}

// listShown is on the screen when the list is on top.
const listShown = "enter open  / filter"

// screenCycle opens one kind of screen from the list and closes it again.
type screenCycle struct {
	name   string
	unit   string   // the filter that selects the unit to open it on
	open   []string // the keys that open it from the list
	close  []string // the keys that close it again; esc when none
	shown  []string // what it shows once open and answered
	cycles int
	// tolerance is the growth allowed over the cycles; 0 is leakTolerance.
	tolerance int
	// first, when set, checks what the screen needs (the pulumi CLI).
	first func(t *testing.T)
	// midway tells the cycles that close the screen before its answer
	// (with what it shows while it waits), to close a run in flight.
	midway func(i int) []string
}

// screenCycles are the screens of the workbench that start work of their
// own (a describe, a diff, a tree read, a preview run): each must end it
// when closed.
var screenCycles = []screenCycle{
	{name: "detail", unit: "guestbook", open: []string{"enter"}, shown: []string{"[Overview]", "Can do"}, cycles: 1000},
	{name: "diff", unit: "guestbook", open: []string{"d"}, shown: []string{"Diff  revision", "unchanged"}, cycles: 1000},
	{name: "resource tree", unit: "guestbook", open: []string{"w"}, shown: []string{"Resources of", "live objects from"}, cycles: 1000},
	{name: "log", unit: "data-lake", open: []string{"enter", "O"}, close: []string{"esc", "esc"}, shown: []string{"pod/infra/", "following"}, cycles: 1000},
	// A preview runs the pulumi CLI on a local state backend: no HTTP
	// client keeps a connection or a goroutine by chance, and its tolerance
	// is smaller (the goroutines and descriptors did not move over 40
	// cycles).
	{name: "preview", unit: "analytics-preview", open: []string{"d"}, shown: []string{"preview done"}, cycles: 40, tolerance: 5,
		first: func(t *testing.T) { pulumiruntest.CLI(t); pulumiruntest.ReleaseHelper(t) },
		midway: func(i int) []string {
			if i%2 == 0 {
				return []string{"running…"}
			}
			return nil
		}},
}

// cycles is how many times a screen is opened: DRIFTDECK_LEAK_CYCLES when
// set (the long run), else the screen's own count, a tenth of it under the
// race detector (which slows each cycle about five times; 100 cycles still
// show a goroutine or descriptor kept by one cycle in four) but never fewer
// than four times the tolerance (a preview: 20 cycles, and one goroutine
// kept by each run closed mid-way is 10, over its tolerance of 5).
func (sc screenCycle) count(t *testing.T) int {
	if v := os.Getenv("DRIFTDECK_LEAK_CYCLES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("DRIFTDECK_LEAK_CYCLES=%q: want a positive number", v)
		}
		return n
	}
	if raceDetector {
		return max(sc.cycles/10, 4*sc.tolerated())
	}
	return sc.cycles
}

func (sc screenCycle) tolerated() int {
	if sc.tolerance == 0 {
		return leakTolerance
	}
	return sc.tolerance
}

// Each screen opened and closed again and again (a thousand times; a
// preview, which runs the real pulumi CLI, 40 times, half of them closed
// mid-run) leaves no goroutine or file descriptor behind.
func TestScreensOpenedAndClosedLeaveNothingBehind(t *testing.T) {
	for _, sc := range screenCycles {
		t.Run(sc.name, func(t *testing.T) {
			if sc.first != nil {
				sc.first(t)
			}
			isolate(t)
			sc.run(t, startWorkbench(t, demoGlobals()))
		})
	}
}

// The detail screen of an Application on a real apiserver (its
// description, Events and actions read from there) opened and closed a
// thousand times leaves no goroutine or file descriptor behind.
func TestClusterTheDetailScreenLeavesNothingBehind(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	ns := c.Namespace(t)
	createJSON(t, dynamic.NewForConfigOrDie(c.Config()), ns, argoApp("web", `{"prune":true}`))
	g := demoGlobals()
	g.demo, g.allNamespaces = false, false
	g.kube.KubeConfig, g.kube.Namespace = testcluster.Kubeconfig(t, c.Config(), "test"), ns
	detail := screenCycles[0]
	detail.unit = "web"
	detail.run(t, startWorkbench(t, g))
}

// run selects the unit in the list, then opens and closes the screen.
func (sc screenCycle) run(t *testing.T, w *workbench) {
	w.waitFor("the list", listShown)
	w.keys("/", sc.unit, "enter")
	// The keys that open a screen act on the row under the cursor: the
	// filter must have left one.
	w.waitUntil("the filtered list", fmt.Sprintf("the list filtered to %s, the cursor on a row", sc.unit), func(s string) bool {
		return containsAll(s, []string{listShown, "/" + sc.unit}) && cursorOnARow(s)
	})
	leakcheck.Cycles(t, sc.count(t), sc.tolerated(), func(i int) {
		w.keys(sc.open...)
		shown := sc.shown
		if sc.midway != nil && sc.midway(i) != nil {
			shown = sc.midway(i)
		}
		w.waitFor(fmt.Sprintf("cycle %d: the %s screen", i, sc.name), shown...)
		w.keys(sc.closing()...)
		w.waitFor(fmt.Sprintf("cycle %d: back from the %s screen", i, sc.name), listShown)
	})
}

func (sc screenCycle) closing() []string {
	if sc.close == nil {
		return []string{"esc"}
	}
	return sc.close
}

// leakTolerance is the growth allowed over a run of cycles: what the
// runtime and the HTTP clients keep by chance, far below one per cycle.
const leakTolerance = 20
