package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/keymap"
	"github.com/driftdeck/driftdeck/themes"
)

// Options configure the app.
type Options struct {
	Backend Backend
	Keys    *keymap.Keymap
	// Theme is a theme name; "auto" follows the terminal background.
	Theme    string
	Demo     bool
	ReadOnly bool
	DryRun   bool
	// Initial is the model as it is when the app starts (may be empty).
	Initial store.Batch
	// Now is the clock (tests pin it).
	Now func() time.Time
	// Context bounds every backend call.
	Context context.Context
	// Logs streams pod logs; nil disables the log screen.
	Logs logs.Source
	// Origin is where the units were found: the commands a screen prints
	// name it.
	Origin cmdline.Origin
}

// App is the root model: it routes messages to the screen stack and draws
// the header, the status line and the footer around the top screen.
type App struct {
	opts      Options
	keys      *keymap.Keymap
	theme     *themes.Theme
	themeName string
	dark      bool
	width     int
	height    int

	stack []screen
	// units is every unit of the last batch by key, whatever the list
	// shows: open screens read their unit from here.
	units   unitsByKey
	avail   availCache
	pending *pendingKey
	// specKeys are the action table's keys, looked up once.
	specKeys map[string]key.Binding
	ids      int
	// lastBody is the body height the screens were last sized to: errors
	// shown whole take lines from it.
	lastBody int
	// body and hintsDrawn keep what the last frames drew (framememo.go).
	body       fittedLines
	hintsDrawn hintMemo

	// bar is the ":" and "/" prompt.
	bar inputBar

	toasts []toast
	// tickDue is when the awaited clock tick is set for (clock.go).
	tickDue time.Time
	status  []store.ContextStatus
	counts  counts
	// requests are the change requests, as of the last batch.
	requests []changereq.Listed
}

// New builds the app.
func New(opts Options) *App {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Keys == nil {
		opts.Keys = keymap.Default()
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	theme, err := themes.ByName(opts.Theme, true)
	if err != nil {
		theme = themes.Dark()
	}
	a := &App{opts: opts, keys: opts.Keys, theme: theme, themeName: opts.Theme, dark: true, width: 80, height: 24,
		avail: availCache{}}
	a.stack = []screen{newListScreen(theme)}
	a.bar = newInputBar()
	a.applyBatch(opts.Initial)
	a.layout()
	return a
}

func (a *App) now() time.Time { return a.opts.Now() }

// Init asks the terminal for its background colour (for the automatic
// theme) and starts the clock that ages the list (clock.go).
func (a *App) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, a.armClock(), a.prefetch(a.list().m.Selected()))
}

// Update routes a message (update), then sets the clock for what the
// message changed on screen.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := a.update(msg)
	return a, tea.Batch(cmd, a.armClock())
}

// update routes a message: keys to the top screen (or the input bar), the
// rest to every screen, each keeping what is addressed to it.
func (a *App) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.layout()
		return nil
	case tea.BackgroundColorMsg:
		a.dark = msg.IsDark()
		_ = a.setTheme(a.themeName)
		return nil
	case BatchMsg:
		b := store.Batch(msg)
		a.applyBatch(b)
		if b.Units == nil {
			return nil
		}
		return tea.Batch(a.broadcast(unitsChangedMsg{changed: b.Changed}), a.prefetch(a.list().m.Selected()))
	case tickMsg:
		a.onTick(msg)
		return nil
	case availMsg:
		return a.onAvail(msg)
	case settledMsg:
		for _, w := range msg.warnings {
			a.toastError(w)
		}
		return nil
	case resultMsg:
		if msg.id == 0 { // a write without a dialog: a refresh
			return a.onResult(msg)
		}
	case unstickDoneMsg:
		a.onUnstickDone(msg)
		return nil
	case rootPlannedMsg:
		return a.onRootPlanned(msg)
	case rootDoneMsg:
		a.onRootDone(msg)
		return nil
	case openMsg:
		return msg.target.open(a)
	case tea.KeyPressMsg:
		return a.onKey(msg)
	}
	if r, ok := msg.(releasable); ok && !a.owned(r.runID()) {
		r.release()
		return nil
	}
	var blink tea.Cmd
	if a.bar.open() {
		a.bar.input, blink = updateField(a.bar.input, msg)
	}
	return tea.Batch(blink, a.broadcast(msg))
}

func (a *App) setTheme(name string) error {
	t, err := themes.ByName(name, a.dark)
	if err != nil {
		return err
	}
	a.theme, a.themeName = t, name
	for _, s := range a.stack {
		s.setTheme(t)
	}
	return nil
}

func (a *App) applyBatch(b store.Batch) {
	if b.Status != nil {
		a.status = b.Status
	}
	if b.Units == nil {
		return
	}
	a.list().m.SetUnits(b.Units, b.Changed, a.now())
	units := inKeyOrder(b.Units, a.units)
	a.counts = a.counts.recount(a.units, units, a.now())
	a.requests = a.opts.Backend.ChangeRequests()
	a.units = units
	a.avail.forget(b.Changed, a.units)
}

// unit is the unit as the last batch has it; nil once it is gone.
func (a *App) unit(k model.Key) *model.Unit { return a.units.get(k) }

// layout hands every screen its size.
func (a *App) layout() {
	body := a.bodyHeight()
	for _, s := range a.stack {
		s.setSize(a.width, body)
	}
	a.bar.input.SetWidth(max(a.width-4, 10))
}

// View draws the screen.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.WindowTitle = "driftdeck"
	return v
}
