package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/keymap"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/detail"
	"github.com/driftdeck/driftdeck/views/list"
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
}

type inputMode int

const (
	modeNormal inputMode = iota
	modeFilter
	modeCommand
)

// App is the root model.
type App struct {
	opts      Options
	keys      *keymap.Keymap
	theme     *themes.Theme
	themeName string
	dark      bool
	width     int
	height    int

	list    *list.Model
	detail  *detail.Model
	diff    *diffScreen
	preview *previewScreen
	help    bool

	mode       inputMode
	input      textinput.Model
	history    []string
	historyPos int

	dialog *dialog
	seq    int // identifies the current dialog's plan requests

	toasts   []toast
	status   []store.ContextStatus
	counts   counts
	describe describeState
}

// describeState throttles re-reading the open unit while it changes.
type describeState struct {
	inflight bool
	stale    bool
	last     time.Time
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
	a := &App{opts: opts, keys: opts.Keys, theme: theme, themeName: opts.Theme, dark: true, width: 80, height: 24}
	a.list = list.New(theme)
	a.input = textinput.New()
	a.applyBatch(opts.Initial)
	a.layout()
	return a
}

func (a *App) now() time.Time { return a.opts.Now() }

// Init asks the terminal for its background colour (for the automatic
// theme) and starts the one-second clock that ages the list.
func (a *App) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, a.tick())
}

func (a *App) tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update routes a message.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.layout()
		return a, nil
	case tea.BackgroundColorMsg:
		a.dark = msg.IsDark()
		a.setTheme(a.themeName)
		return a, nil
	case BatchMsg:
		a.applyBatch(store.Batch(msg))
		return a, tea.Batch(a.refreshDetail(store.Batch(msg).Changed), a.diffOnChange(store.Batch(msg).Changed))
	case diffMsg:
		return a, a.onDiff(msg)
	case previewEventMsg:
		return a, a.onPreviewEvent(msg)
	case previewDoneMsg:
		a.onPreviewDone(msg)
		return a, nil
	case applyDoneMsg:
		a.onApplyDone(msg)
		return a, nil
	case unstickPlanMsg:
		return a, a.onUnstickPlan(msg)
	case unstickDoneMsg:
		a.onUnstickDone(msg)
		return a, nil
	case tickMsg:
		a.expireToasts(time.Time(msg))
		return a, a.tick()
	case availMsg:
		if a.detail != nil && a.detail.Key() == msg.key {
			a.detail.SetAvailability(msg.avail)
		}
		if a.dialog != nil {
			a.dialog.setAvailability(msg.key, msg.avail)
		}
		return a, nil
	case describeMsg:
		a.describe.inflight = false
		if a.detail != nil && a.detail.Key() == msg.key {
			a.detail.SetDetail(msg.detail, msg.err)
			if a.describe.stale {
				return a, a.describeCmd()
			}
		}
		return a, nil
	case planMsg:
		if a.dialog != nil && msg.seq == a.seq {
			a.dialog.setPlan(msg.plan, msg.err)
		}
		return a, nil
	case resultMsg:
		return a, a.onResult(msg)
	case bulkMsg:
		a.onBulk(msg)
		return a, nil
	case tea.KeyPressMsg:
		return a, a.onKey(msg)
	}
	if a.mode != modeNormal || a.dialog != nil {
		return a, a.forwardToInputs(msg)
	}
	return a, nil
}

func (a *App) setTheme(name string) error {
	t, err := themes.ByName(name, a.dark)
	if err != nil {
		return err
	}
	a.theme, a.themeName = t, name
	a.list.SetTheme(t)
	if a.diff != nil {
		a.diff.view.SetTheme(t)
	}
	if a.preview != nil {
		a.preview.view.SetTheme(t)
	}
	if a.detail != nil {
		a.detail.SetTheme(t)
	}
	return nil
}

func (a *App) applyBatch(b store.Batch) {
	if b.Units == nil && b.Status == nil {
		return
	}
	if b.Status != nil {
		a.status = b.Status
	}
	if b.Units != nil {
		a.list.SetUnits(b.Units, b.Changed, a.now())
		a.counts = countUnits(b.Units, a.now())
	}
}

// refreshDetail keeps the open detail view current: the unit at once, the
// description at most once a second.
func (a *App) refreshDetail(changed map[model.Key]bool) tea.Cmd {
	if a.detail == nil || !changed[a.detail.Key()] {
		return nil
	}
	for _, u := range a.list.Shown() {
		if u.Key == a.detail.Key() {
			a.detail.SetUnit(u)
		}
	}
	return tea.Batch(a.describeCmd(), a.availCmd(a.detail.Unit()))
}

// describeCmd re-reads the open unit, at most once a second; a change that
// arrives meanwhile is picked up when the read in flight returns.
func (a *App) describeCmd() tea.Cmd {
	if a.detail == nil {
		return nil
	}
	if a.describe.inflight {
		a.describe.stale = true
		return nil
	}
	k := a.detail.Key()
	be, ctx := a.opts.Backend, a.opts.Context
	fetch := func() tea.Msg {
		d, err := be.Describe(ctx, k)
		return describeMsg{key: k, detail: d, err: err}
	}
	a.describe.inflight, a.describe.stale = true, false
	if wait := time.Second - a.now().Sub(a.describe.last); wait > 0 && !a.describe.last.IsZero() {
		a.describe.last = a.now().Add(wait)
		return tea.Tick(wait, func(time.Time) tea.Msg { return fetch() })
	}
	a.describe.last = a.now()
	return fetch
}

func (a *App) availCmd(u *model.Unit) tea.Cmd {
	if u == nil {
		return nil
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg { return availMsg{key: u.Key, avail: be.Available(ctx, u)} }
}

// layout hands every part its size.
func (a *App) layout() {
	body := a.bodyHeight()
	a.list.SetSize(a.width, body)
	if a.detail != nil {
		a.detail.SetSize(a.width, body)
	}
	if a.diff != nil {
		a.diff.view.SetSize(a.width, body)
	}
	if a.preview != nil {
		a.preview.view.SetSize(a.width, body)
	}
	a.input.SetWidth(max(a.width-4, 10))
}

// bodyHeight is what is left between the header and the footer.
func (a *App) bodyHeight() int { return max(a.height-headerLines-footerLines, 1) }

// openDetail shows the detail view of the selected unit.
func (a *App) openDetail() tea.Cmd {
	u := a.list.Selected()
	if u == nil {
		return nil
	}
	a.detail = detail.New(a.theme, u)
	a.describe = describeState{}
	a.layout()
	return tea.Batch(a.describeCmd(), a.availCmd(u))
}

// View draws the screen.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.WindowTitle = "driftdeck"
	return v
}
