package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/backend/store"
)

// changedUnit is a batch in which one unit changed as f says.
func changedUnit(name string, f func(u *model.Unit)) BatchMsg {
	units := fixtureUnits()
	changed := map[model.Key]bool{}
	for _, u := range units {
		if u.Key.Name == name {
			f(u)
			changed[u.Key] = true
		}
	}
	return BatchMsg(store.Batch{Units: units, Changed: changed})
}

func TestDetailFollowsItsUnitWhenTheListNoLongerShowsIt(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	selectUnit(t, a, "search-indexer")
	press(a, "enter")
	// Narrow the list to Stacks: the open Application is no longer shown.
	press(a, ":")
	typeText(a, "stacks")
	press(a, "enter")
	if n := len(a.list().m.Shown()); n != 2 {
		t.Fatalf("the list shows %d units, want the 2 Stacks", n)
	}
	_, cmd := a.Update(changedUnit("search-indexer", func(u *model.Unit) {
		u.RunReason = "sync running: waiting for healthy state of apps/Deployment/frontend-canary"
	}))
	run(a, cmd, 0)
	if !topIs[*detailScreen](a) || !strings.Contains(plain(a), "frontend-canary") {
		t.Fatalf("the detail view did not take the change of its unit:\n%s", plain(a))
	}
}

func TestClosingAScreenShowsTheOneBelow(t *testing.T) {
	a, _ := newTestApp(t, 100, 30)
	selectUnit(t, a, "checkout")
	press(a, "enter", "?")
	if !topIs[*helpScreen](a) || len(a.stack) != 3 {
		t.Fatalf("want list, detail, help; have %d screens", len(a.stack))
	}
	press(a, "esc")
	if !topIs[*detailScreen](a) {
		t.Fatal("esc on help must go back to the detail view")
	}
	press(a, "esc")
	if !topIs[*listScreen](a) || len(a.stack) != 1 {
		t.Fatal("esc on the detail view must go back to the list")
	}
}

// previewPlayer plays previews: run n waits as its step says.
type previewPlayer struct {
	calls    atomic.Int32
	release  chan struct{}
	returned chan int
}

func newPreviewPlayer() *previewPlayer {
	return &previewPlayer{release: make(chan struct{}), returned: make(chan int, 4)}
}

// play: the first run streams one step and runs until cancelled; later ones
// stream one step and finish with a reviewed plan once released.
func (p *previewPlayer) play(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error) {
	n := int(p.calls.Add(1))
	defer func() { p.returned <- n }()
	onEvent(pulumirun.Event{Step: &pulumirun.Step{Seq: n, Op: pulumirun.OpUpdate, Type: "aws:s3/bucket:Bucket", Name: "assets-" + itoa(n)}})
	if n == 1 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	select {
	case <-p.release:
		return reviewedPlan(k), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestCancelledPreviewDoesNotEndTheNextOne(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	player := newPreviewPlayer()
	be.preview = player.play
	ch := make(chan tea.Msg, 64)
	selectUnit(t, a, "edge-cdn")

	sendKey(a, ch, "d")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "assets-1") })
	sendKey(a, ch, "esc")
	// Hold the first run's end until the second run is under way.
	var firstDone tea.Msg
	for firstDone == nil {
		select {
		case m := <-ch:
			if d, ok := m.(previewDoneMsg); ok {
				firstDone = d
			}
		case <-time.After(2 * time.Second):
			t.Fatal("the first preview was not cancelled when its screen closed")
		}
	}
	sendKey(a, ch, "d")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "assets-2") })
	_, cmd := a.Update(firstDone)
	async(cmd, ch)
	s := a.top().(*previewScreen)
	if !s.running || strings.Contains(plain(a), "context canceled") {
		t.Fatalf("the first run's end ended the second run:\n%s", plain(a))
	}
	close(player.release)
	deliver(t, a, ch, func() bool { return !s.running })
	if s.reviewed == nil || !strings.Contains(plain(a), "A applies exactly this plan") {
		t.Fatalf("the second run did not finish with its plan:\n%s", plain(a))
	}
}

func TestClosedPreviewNeverBlocksItsProducer(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	returned := make(chan struct{})
	started := make(chan struct{})
	be.preview = func(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error) {
		defer close(returned)
		close(started)
		// A producer that ignores its context and streams on.
		for i := 0; i < 5000; i++ {
			onEvent(pulumirun.Event{Step: &pulumirun.Step{Seq: i, Op: pulumirun.OpCreate, Type: "random:index:RandomId", Name: "id-" + itoa(i)}})
		}
		return nil, errors.New("stopped")
	}
	selectUnit(t, a, "edge-cdn")
	ch := make(chan tea.Msg, 64)
	sendKey(a, ch, "d")
	<-started
	a.Update(keyMsg("esc")) // closed before reading a single event
	select {
	case <-returned:
	case <-time.After(3 * time.Second):
		t.Fatal("the preview's producer is blocked on a closed screen")
	}
}

func TestApproveIsOfferedOnlyForAFinishedReviewedPlan(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	player := newPreviewPlayer()
	player.calls.Store(1) // skip the run that waits to be cancelled
	be.preview = player.play
	ch := make(chan tea.Msg, 64)
	selectUnit(t, a, "edge-cdn")
	sendKey(a, ch, "d")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "assets-2") })
	footer := func() string { lines := strings.Split(plain(a), "\n"); return lines[len(lines)-1] }
	if strings.Contains(footer(), "approve") {
		t.Fatalf("approve is offered while the preview runs: %q", footer())
	}
	sendKey(a, ch, "A")
	if !topIs[*previewScreen](a) || !strings.Contains(plain(a), "still running") {
		t.Fatalf("A while the preview runs must say why not and open nothing:\n%s", plain(a))
	}
	close(player.release)
	deliver(t, a, ch, func() bool { return strings.Contains(footer(), "approve") })
	sendKey(a, ch, "A")
	if !topIs[*dialog](a) || !strings.Contains(plain(a), "Apply the reviewed plan") {
		t.Fatalf("A on a reviewed plan must ask to apply it:\n%s", plain(a))
	}
}

func TestFailedPreviewWithoutPulumiSaysHowToGetIt(t *testing.T) {
	defer func(f func() (string, error)) { findPulumiCLI = f }(findPulumiCLI)
	findPulumiCLI = func() (string, error) { return "", errors.New("no pulumi CLI found") }
	a, _ := newTestApp(t, 80, 24)
	selectUnit(t, a, "edge-cdn")
	press(a, "d")
	text := flat(a)
	for _, want := range []string{"no pulumi in this test", "make tools", "DRIFTDECK_PULUMI=/path/to/pulumi", "on PATH"} {
		if !strings.Contains(text, want) {
			t.Errorf("the failed preview does not say %q:\n%s", want, plain(a))
		}
	}
	if strings.Contains(plain(a), "approve") {
		t.Errorf("approve is offered without a plan:\n%s", plain(a))
	}
}

func TestDetailKeepsRefreshingWhileACommandIsTyped(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	selectUnit(t, a, "search-indexer")
	press(a, "enter", ":") // the command bar is open over the detail view
	now := fixedNow
	a.opts.Now = func() time.Time { return now }
	for i := 1; i <= 2; i++ {
		now = now.Add(2 * time.Second) // past the once-a-second limit
		_, cmd := a.Update(changedUnit("search-indexer", func(u *model.Unit) { u.RunReason = "change " + itoa(i) }))
		run(a, cmd, 0)
	}
	if got := be.describes; got != 3 {
		t.Fatalf("the open unit was described %d times, want 3 (open and two changes)", got)
	}
}

// A read of the details that fails is said on the tab shown, not left as
// "loading…", and is tried again until one answers.
func TestDetailSaysAFailedReadAndReadsAgain(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	now := fixedNow
	a.opts.Now = func() time.Time { now = now.Add(2 * time.Second); return now } // past the once-a-second limit
	selectUnit(t, a, "search-indexer")
	be.describeFailures = 1 // the open's read fails, the next answers
	_, cmd := a.Update(keyMsg("enter"))
	a.Update(keyMsg("y"))
	first, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("opening the detail did not batch its reads")
	}
	var retry tea.Cmd
	for _, c := range first {
		if c == nil {
			continue
		}
		if m, ok := c().(describeMsg); ok {
			_, retry = a.Update(m)
		}
	}
	if text := flat(a); !strings.Contains(text, "Could not load details: reading") || strings.Contains(text, "loading…") {
		t.Fatalf("the YAML tab does not say the failed read:\n%s", plain(a))
	}
	run(a, retry, 0)
	if got := be.describes; got != 2 {
		t.Fatalf("the unit was described %d times, want 2 (the failed read and the one after)", got)
	}
	if text := flat(a); !strings.Contains(text, "kind: Application") || strings.Contains(text, "Could not load details") {
		t.Fatalf("the YAML tab did not take the next read:\n%s", plain(a))
	}
}

func TestApplyStreamsIntoItsScreenAndIsNotLeftHalfWay(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	player := newPreviewPlayer()
	player.calls.Store(1)
	close(player.release)
	be.preview = player.play
	finish := make(chan struct{})
	be.approve = func(ctx context.Context, rv *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, *stackops.Done, error) {
		onEvent(pulumirun.Event{Step: &pulumirun.Step{Seq: 1, Op: pulumirun.OpUpdate, Type: "aws:s3/bucket:Bucket", Name: "applying-assets"}})
		select {
		case <-finish:
			return pulumirun.Result{Elapsed: time.Second}, nil, nil
		case <-ctx.Done():
			return pulumirun.Result{}, nil, ctx.Err()
		}
	}
	ch := make(chan tea.Msg, 64)
	selectUnit(t, a, "edge-cdn")
	sendKey(a, ch, "d")
	s := a.top().(*previewScreen)
	deliver(t, a, ch, func() bool { return s.reviewed != nil })
	sendKey(a, ch, "A")
	typeText(a, "INC-3: reviewed")
	sendKey(a, ch, "enter")
	sendKey(a, ch, "y")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "applying-assets") })
	sendKey(a, ch, "esc")
	if a.top() != screen(s) || !strings.Contains(flat(a), "runs until it ends") {
		t.Fatalf("esc during the apply must say why it stays:\n%s", plain(a))
	}
	close(finish)
	deliver(t, a, ch, func() bool { return !s.running })
	if !strings.Contains(plain(a), "applied the reviewed plan") {
		t.Fatalf("the apply's end is not shown:\n%s", plain(a))
	}
}

// Keys typed ahead (pasted, or over a slow link) go to the screen the key
// before them opened, before any answer from the backend comes.
func TestAKeyTypedAheadGoesToTheScreenTheKeyBeforeOpened(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	selectUnit(t, a, "checkout")
	a.Update(keyMsg("enter"))
	if _, open := a.top().(*detailScreen); !open {
		t.Fatalf("enter did not open the detail at once:\n%s", plain(a))
	}
	a.Update(keyMsg("a"))
	if d, open := a.top().(*dialog); !open || d.kind != dlgMenu || d.units[0].Key.Name != "checkout" {
		t.Fatalf("a, typed right after enter, must open the actions of the detail's unit:\n%s", plain(a))
	}
}
