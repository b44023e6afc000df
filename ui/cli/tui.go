package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/term"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/residency"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/keymap"
	"github.com/driftdeck/driftdeck/ui"
)

// pumpInterval batches watch events into one screen update; clockTick
// re-derives time-dependent states (stuck thresholds, windows, expiries).
const (
	pumpInterval = 150 * time.Millisecond
	clockTick    = 5 * time.Second
)

func runTUI(ctx context.Context, g *globals) error {
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	keys := keymap.Default()
	if err := keys.Override(cfg.Keys); err != nil {
		return &exitError{code: 2, err: fmt.Errorf("config %s: %w", config.DefaultPath(), err)}
	}
	// The demo's root modules' work in the background ends with ctx: the
	// workbench returns once it has (it writes in the demo's directory).
	defer demo.WaitBackground()
	defer waitRuns(g.errOut)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f, err := connect(ctx, g, cfg.StuckThresholds(), true)
	var ee *exitError
	if errors.As(err, &ee) && errors.Is(err, errNoKubeconfig) && offerDemo(g) {
		g.demo = true
		f, err = connect(ctx, g, cfg.StuckThresholds(), true)
	}
	if err != nil {
		return err
	}
	contexts := selectedContexts(g)
	go residency.Settle(ctx, func() bool { return f.Store.FirstListsIn(contexts) })
	svc, err := newService(ctx, g, f, cfg)
	if err != nil {
		return err
	}
	// Give the first lists a moment so the screen opens full, not empty; a
	// slow or dead cluster still gets the screen at once, filled (or marked
	// disconnected) as answers come.
	settled(f, contexts, time.Now().Add(800*time.Millisecond))
	f.Store.Tick()
	initial, _ := f.Store.Flush()
	app := ui.New(ui.Options{
		Backend: svc, Keys: keys, Theme: cfg.Theme, Demo: g.demo, ReadOnly: g.readOnly, DryRun: g.dryRun,
		Initial: initial, Context: ctx, Logs: newLogService(g, f.Cluster, f.ArgoAPI, svc.trees.Destinations), Origin: g.origin(),
	})
	rest := RestGCWhileTheModelHolds(GCRestAfter)
	defer rest.Stop()
	// 30 frames a second: the renderer re-reads the whole frame at every
	// tick, changed or not, and at the default 60 that alone is 2% of a core
	// while idle. Key handling is not delayed; only its drawing, by 33 ms at most.
	return runGuarded(ctx, app, []func(*tea.Program){
		func(p *tea.Program) {
			f.Store.Pump(ctx, pumpInterval, clockTick, rest.Watching(func(b store.Batch) { p.Send(ui.BatchMsg(b)) }))
		},
	}, tea.WithFPS(30), tea.WithFilter(rest.Typing))
}

// runsStopWithin bounds the wait for the pulumi runs a quit interrupted.
const runsStopWithin = 30 * time.Second

// waitRuns waits for the pulumi runs a quit interrupted (previews, applies,
// drift checks): each releases its stack's lock as it stops.
func waitRuns(errOut io.Writer) {
	if !pulumirun.WaitRuns(runsStopWithin) {
		fmt.Fprintf(errOut, "a pulumi run did not stop within %v of quitting: its stack may stay locked (the unlock action breaks a lock left behind)\n", runsStopWithin)
	}
}

// offerDemo asks, on a terminal, whether to start the demo instead.
func offerDemo(g *globals) bool {
	in, ok := g.in.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return false
	}
	fmt.Fprint(g.errOut, errNoKubeconfig.Error()+"\nStart driftdeck on the embedded demo control plane now? [Y/n] ")
	line, _ := bufio.NewReader(in).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "" || answer == "y" || answer == "yes"
}

// settled waits until every context has its first lists or an error, or
// the deadline passes.
func settled(f *fleet.Fleet, contexts int, deadline time.Time) {
	for time.Now().Before(deadline) && !f.Store.FirstListsIn(contexts) {
		time.Sleep(10 * time.Millisecond)
	}
}

// selectedContexts is how many contexts the session watches.
func selectedContexts(g *globals) int {
	if g.demo {
		return 1
	}
	names, err := contextNames(g)
	if err != nil {
		return 1
	}
	return len(names)
}
