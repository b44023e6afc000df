package ui

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
)

// demoBackend plans and checks availability with the real executor on the
// demo control plane, and writes nothing (dry run).
type demoBackend struct {
	*fakeBackend
	exec *actions.Executor
}

func (b *demoBackend) Available(ctx context.Context, u *model.Unit) []model.Availability {
	return b.exec.Available(ctx, u)
}

func (b *demoBackend) Plan(ctx context.Context, req actions.Request) (*actions.Plan, error) {
	return b.exec.Plan(ctx, req)
}

func (b *demoBackend) OwnerWrites(ctx context.Context, r actions.BulkRequest) []actions.OwnerWrite {
	return b.exec.OwnerWrites(ctx, r)
}

// demoApp is the app on the demo control plane at w x h, with its units.
func demoApp(t *testing.T, w, h int) (*App, *demoBackend, []*model.Unit) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := demo.Start(ctx, demo.Options{Timings: demo.Timings{DriftEvery: -1}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(demo.Cleanup)
	f := fleet.New(fleet.Options{})
	if err := f.Add(ctx, c, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	f.Store.Tick()
	initial, _ := f.Store.Flush()
	be := &demoBackend{fakeBackend: &fakeBackend{}, exec: &actions.Executor{Cluster: f.Cluster, DryRun: true}}
	a := New(Options{Backend: be, Theme: "dark", Initial: initial, Context: ctx})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, be, initial.Units
}

// settle runs a command and all that follows from it, as the program
// would, however long the backend takes; the cursor's blinks are dropped.
func settle(t *testing.T, a *App, cmd tea.Cmd) {
	t.Helper()
	results := make(chan tea.Msg, 64)
	inflight := 0
	launch := func(c tea.Cmd) {
		if c != nil {
			inflight++
			go func() { results <- c() }()
		}
	}
	launch(cmd)
	deadline := time.After(2 * time.Minute)
	for inflight > 0 {
		var msg tea.Msg
		select {
		case msg = <-results:
		case <-deadline:
			t.Fatalf("%d commands still running after 2 minutes", inflight)
		}
		inflight--
		switch m := msg.(type) {
		case tea.BatchMsg:
			for _, c := range m {
				launch(c)
			}
		case nil, tickMsg:
		default:
			if strings.HasPrefix(fmt.Sprintf("%T", m), "cursor.") {
				continue
			}
			_, next := a.Update(m)
			launch(next)
		}
	}
}

var dialogPosition = regexp.MustCompile(`lines (\d+)-(\d+) of (\d+)`)

// dialogRows are the text lines inside the dialog's border.
func dialogRows(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		first, last := strings.Index(l, "│"), strings.LastIndex(l, "│")
		if first >= 0 && last > first {
			out = append(out, strings.TrimSpace(l[first+len("│"):last]))
		}
	}
	return out
}

// readWholeBlock scrolls a confirmation from its first line to its last
// with pgdown, checking on every screen that the title, the buttons and
// the bottom border are there, and returns the write block as read.
func readWholeBlock(t *testing.T, a *App, what string) []string {
	t.Helper()
	press(a, "pgup", "pgup", "pgup")
	s := plain(a)
	title := dialogRows(s)[0]
	body := map[int]string{}
	total := 0
	for step := 0; ; step++ {
		rows := dialogRows(s)
		if lines := strings.Count(s, "\n") + 1; lines > a.height {
			t.Fatalf("%s: the screen has %d lines at height %d", what, lines, a.height)
		}
		buttons := strings.Contains(s, "[ No ]") && strings.Contains(s, "[ Yes ]") || strings.Contains(s, "esc closes")
		if !buttons || !strings.Contains(s, "╰") || !strings.Contains(s, "╭") || len(rows) == 0 || rows[0] != title {
			t.Fatalf("%s, step %d: the title %q, the buttons or a border left the screen:\n%s", what, step, title, s)
		}
		at := slices.IndexFunc(rows, dialogPosition.MatchString)
		if at < 0 {
			// All of it fits: the block is between the title and the reason.
			for i, r := range rows[1:] {
				if strings.HasPrefix(r, "› Reason:") || strings.HasPrefix(r, "Nothing will be written") {
					break
				}
				body[i+1], total = r, i+1
			}
			break
		}
		m := dialogPosition.FindStringSubmatch(rows[at])
		from, to, n := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
		for i := from; i <= to; i++ {
			body[i] = rows[at-(to-i)-1]
		}
		total = n
		if to == n {
			break
		}
		if step > n {
			t.Fatalf("%s: pgdown never reached line %d:\n%s", what, n, s)
		}
		press(a, "pgdown")
		s = plain(a)
	}
	var block []string
	for i := 1; i <= total; i++ {
		l, ok := body[i]
		if !ok {
			t.Fatalf("%s: line %d of %d was never shown", what, i, total)
		}
		block = append(block, l)
	}
	return block
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// squeezed is text without its white space, to find a line wrapped on screen.
func squeezed(s string) string { return strings.Join(strings.Fields(s), "") }

// Every action kind's confirmation, on a demo unit it is possible for, at
// 80x24: the write block scrolls to its last line, every change, warning
// and other object written is shown, and the title, the buttons and both
// borders stay on the screen throughout.
func TestEveryConfirmationScrollsToTheLastLineOfItsWriteAt80x24(t *testing.T) {
	a, be, units := demoApp(t, 80, 24)
	ctx := context.Background()
	// The pause of an ApplicationSet's child is the longest: take it first.
	units = slices.Clone(units)
	slices.SortStableFunc(units, func(x, y *model.Unit) int {
		return strings.Compare(x.Owner, y.Owner) * -1
	})
	for _, spec := range actions.Specs() {
		if !spec.Destructive {
			continue // a refresh writes at once; its confirmations are bulk and with-source ones
		}
		t.Run(string(spec.Kind), func(t *testing.T) {
			var u *model.Unit
			for _, c := range units {
				if av, ok := availabilityIn(be.exec.Available(ctx, c), spec.Kind); ok && av.Enabled {
					u = c
					break
				}
			}
			if u == nil {
				t.Skipf("no demo unit can %s now", spec.Kind)
			}
			req := actions.Request{Kind: spec.Kind, Key: u.Key}
			switch spec.Kind {
			case actions.Unlock:
				settle(t, a, a.startUnlock(u))
			case actions.Rollback:
				req.HistoryID = u.Argo.HistoryIDs[0]
				settle(t, a, a.startRequest(req, a.top()))
			default:
				settle(t, a, a.startRequest(req, a.top()))
			}
			d, ok := a.top().(*dialog)
			if u, unlock := a.top().(*unlockDialog); unlock {
				d, ok = u.dialog, true
			}
			if !ok {
				t.Fatalf("no confirmation opened:\n%s", plain(a))
			}
			defer a.close(d.self())
			block := squeezed(strings.Join(readWholeBlock(t, a, string(spec.Kind)+" "+u.Key.Ref()), " "))
			var want []string
			if d.plan != nil {
				want = append(want, d.plan.Changes...)
				want = append(want, d.plan.Warnings...)
				for _, o := range d.plan.Also {
					want = append(want, o.Heading())
					want = append(want, o.Changes...)
				}
			}
			for _, w := range want {
				if !strings.Contains(block, squeezed(w)) {
					t.Errorf("%s %s: scrolled through, the dialog never showed %q:\n%s", spec.Kind, u.Key.Ref(), w, block)
				}
			}
			if len(want) > 0 && !strings.HasSuffix(block, squeezed(want[len(want)-1])) && len(d.plan.Also) > 0 {
				t.Errorf("%s: the block does not end with the last line of the last object's write:\n%s", spec.Kind, block)
			}
		})
	}
}

// Every bulk action's confirmation at 80x24 shows each unit's write, as a
// single action's does, scrolled to its last line with the buttons on the
// screen; so does a reconcile with its source first.
func TestEveryBulkConfirmationShowsEachUnitsWriteAt80x24(t *testing.T) {
	a, _, units := demoApp(t, 80, 24)
	for _, spec := range actions.Specs() {
		if !spec.Bulkable {
			continue
		}
		t.Run(string(spec.Kind), func(t *testing.T) {
			var targets []*model.Unit
			for _, u := range units {
				if spec.Knows(u.Key.Engine) && len(targets) < 4 {
					targets = append(targets, u)
				}
			}
			settle(t, a, a.openBulk(spec.Kind, targets))
			d := a.top().(*dialog)
			defer a.close(d.self())
			block := squeezed(strings.Join(readWholeBlock(t, a, "bulk "+string(spec.Kind)), " "))
			for _, u := range targets {
				p, ok := d.unitPlans[u.Key]
				if !ok {
					t.Fatalf("%s: the write to %s was not read", spec.Kind, u.Key.Ref())
				}
				var want []string
				if p.err != nil {
					want = []string{u.Key.Ref()}
				} else {
					want = append(append([]string{p.plan.Summary}, p.plan.Changes...), p.plan.Warnings...)
				}
				for _, w := range want {
					if !strings.Contains(block, squeezed(w)) {
						t.Errorf("bulk %s: the dialog never showed %q of %s:\n%s", spec.Kind, w, u.Key.Ref(), block)
					}
				}
			}
		})
	}
	t.Run("refresh with source", func(t *testing.T) {
		for _, u := range units {
			if withSourceWhyNot(u) != "" {
				continue
			}
			settle(t, a, a.startRequest(actions.Request{Kind: actions.Refresh, Key: u.Key, WithSource: true}, a.top()))
			d := a.top().(*dialog)
			defer a.close(d.self())
			if d.plan == nil {
				continue // refused for this unit (its source is not served): try the next
			}
			block := squeezed(strings.Join(readWholeBlock(t, a, "refresh with source "+u.Key.Ref()), " "))
			for _, c := range d.plan.Changes {
				if !strings.Contains(block, squeezed(c)) {
					t.Errorf("the dialog never showed %q:\n%s", c, block)
				}
			}
			return
		}
		t.Fatal("no demo unit names a source")
	})
}

func availabilityIn(avs []model.Availability, k actions.Kind) (model.Availability, bool) {
	for _, av := range avs {
		if av.Kind == k {
			return av, true
		}
	}
	return model.Availability{}, false
}

// pressSettled is press, waiting for all that follows from each key.
func pressSettled(t *testing.T, a *App, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := a.Update(keyMsg(k))
		settle(t, a, cmd)
	}
}

// A freeze lists every annotation it writes on each unit, the expiry's
// paused-until included, and shows the reason typed with its controls
// made visible: a bidi override neither reorders the line nor shifts the
// dialog's border.
func TestFreezeShowsEachUnitsPauseWithItsExpiryAndTheReasonEscaped(t *testing.T) {
	a, _, units := demoApp(t, 120, 40)
	var targets []*model.Unit
	for _, u := range units {
		if u.Key.Engine == model.EngineArgoCD && (u.Key.Name == "cart" || u.Key.Name == "search-api") {
			targets = append(targets, u)
		}
	}
	if len(targets) != 2 {
		t.Fatalf("the demo has %d of cart and search-api", len(targets))
	}
	settle(t, a, a.openBulk(actions.Pause, targets))
	typeText(a, "INC-9\u202eevil")
	pressSettled(t, a, "enter")
	typeText(a, "2h")
	pressSettled(t, a, "enter")
	s := plain(a)
	if strings.ContainsRune(s, '\u202e') || !strings.Contains(s, `INC-9\u202eevil`) {
		t.Fatalf("the reason is not shown escaped:\n%s", s)
	}
	width := -1
	for _, l := range strings.Split(s, "\n") {
		if i := strings.LastIndex(l, "│"); i >= 0 && strings.Contains(l[:i], "│") {
			if w := len([]rune(l[:i])); width < 0 {
				width = w
			} else if w != width {
				t.Fatalf("the dialog's right border moved (column %d, then %d):\n%s", width, w, s)
			}
		}
	}
	block := squeezed(strings.Join(readWholeBlock(t, a, "freeze"), " "))
	for _, u := range targets {
		for _, ann := range []string{"paused-by", "paused-reason", "paused-at", "paused-until", "paused-mode", "paused-previous"} {
			if !strings.Contains(block, squeezed(u.Key.Ref())) || strings.Count(block, "driftdeck.io/"+ann) < len(targets) {
				t.Errorf("the freeze does not list %s for each unit:\n%s", ann, block)
			}
		}
	}
}
