package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
)

// logTail is how many of the newest lines a log screen starts with; the
// buffer's byte budget bounds what it keeps after that.
const logTail = 10000

// logSinces are the windows the since key cycles through, as k9s offers
// them; 0 is the whole log (its newest logTail lines).
var logSinces = []time.Duration{0, time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}

// logScreen streams one pod's log into a bounded buffer: following (the
// view sticks to the newest line) or held (lines keep arriving below),
// one container at a time, the previous instance's on demand, the lines of
// the last minutes only on demand, searchable.
type logScreen struct {
	unit    *model.Key // the unit it was opened from; nil for a pod
	targets []logs.Target
	ti      int
	// container and previous choose the stream.
	container string
	previous  bool
	since     time.Duration // only lines newer than this; 0 is all
	follow    bool          // the view sticks to the newest line
	buf       *logs.Buffer
	top       int // the first line shown while not following

	run    int
	cancel context.CancelFunc
	ended  bool
	err    error

	searching bool
	input     textinput.Model
	query     string
	match     int // the line of the current match; -1 for none

	width, height int
	theme         *themes.Theme
}

type logTargetsMsg struct {
	id      int
	targets []logs.Target
	err     error
}

// logChunkMsg is the lines that arrived since the last one; done when the
// stream ended (err says why, if not simply the log's end).
type logChunkMsg struct {
	id    int
	lines []logs.Line
	done  bool
	err   error
}

func newLogScreen(unit *model.Key) *logScreen {
	in := newInput("search (case-insensitive)")
	return &logScreen{unit: unit, follow: true, buf: logs.NewBuffer(0), match: -1, input: in}
}

// logsOf opens the log of the pod a unit runs in (a Stack's workspace
// pod, an operation's hook Job).
type logsOf struct{ key model.Key }

func (o logsOf) open(a *App) tea.Cmd {
	k := o.key
	src := a.opts.Logs
	if src == nil {
		a.toastError("logs are not available here")
		return nil
	}
	s := newLogScreen(&k)
	a.push(s)
	return s.resolve(a)
}

// resolve asks which pods the unit's log comes from now.
func (s *logScreen) resolve(a *App) tea.Cmd {
	s.run = a.nextID()
	id, ctx, src, k := s.run, a.opts.Context, a.opts.Logs, *s.unit
	return func() tea.Msg {
		ts, err := src.Targets(ctx, k)
		return logTargetsMsg{id: id, targets: ts, err: err}
	}
}

// podLogsOf opens one pod's log (the resource tree's l on a pod).
type podLogsOf struct{ pod logs.PodRef }

func (o podLogsOf) open(a *App) tea.Cmd {
	p := o.pod
	src := a.opts.Logs
	if src == nil {
		a.toastError("logs are not available here")
		return nil
	}
	s := newLogScreen(nil)
	s.run = a.nextID()
	a.push(s)
	id, ctx := s.run, a.opts.Context
	return func() tea.Msg {
		t, err := src.Pod(ctx, p)
		if err != nil {
			return logTargetsMsg{id: id, err: err}
		}
		return logTargetsMsg{id: id, targets: []logs.Target{t}}
	}
}

func (s *logScreen) setSize(w, h int)         { s.width, s.height = w, h; s.input.SetWidth(max(w-12, 10)) }
func (s *logScreen) setTheme(t *themes.Theme) { s.theme = t }
func (s *logScreen) close() {
	if s.cancel != nil {
		s.cancel()
	}
}

func (s *logScreen) target() (logs.Target, bool) {
	if s.ti >= len(s.targets) {
		return logs.Target{}, false
	}
	return s.targets[s.ti], true
}

// start (re)opens the stream of the chosen pod and container.
func (s *logScreen) start(a *App) tea.Cmd {
	s.close()
	t, ok := s.target()
	if !ok {
		return nil
	}
	s.run = a.nextID()
	s.buf.Reset()
	s.top, s.match, s.ended, s.err = 0, -1, false, nil
	ctx, cancel := context.WithCancel(a.opts.Context)
	s.cancel = cancel
	ch := make(chan logChunkMsg, 512)
	src, id := a.opts.Logs, s.run
	o := logs.Options{Container: s.container, Follow: !s.previous, Previous: s.previous, Since: s.since, Tail: logTail, About: t.About}
	go func() {
		err := src.Stream(ctx, t.Pod, o, func(l logs.Line) {
			select { // a closed screen never blocks its producer
			case ch <- logChunkMsg{lines: []logs.Line{l}}:
			case <-ctx.Done():
			}
		})
		select {
		case ch <- logChunkMsg{done: true, err: err}:
		case <-ctx.Done():
		}
	}()
	return waitLog(ctx, id, ch)
}

// waitLog waits for the next line, then takes what else has arrived, so a
// burst comes as one message.
func waitLog(ctx context.Context, id int, ch <-chan logChunkMsg) tea.Cmd {
	return func() tea.Msg {
		out := logChunkMsg{id: id}
		take := func(m logChunkMsg) {
			out.lines = append(out.lines, m.lines...)
			out.done, out.err = m.done, m.err
		}
		select {
		case m := <-ch:
			take(m)
		case <-ctx.Done():
			return nil
		}
		for len(out.lines) < 2000 && !out.done {
			select {
			case m := <-ch:
				take(m)
			default:
				return logNext{out, ctx, ch}
			}
		}
		return logNext{out, ctx, ch}
	}
}

// logNext carries a chunk and how to wait for the next one.
type logNext struct {
	logChunkMsg
	ctx context.Context
	ch  <-chan logChunkMsg
}

func (s *logScreen) update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case logTargetsMsg:
		if msg.id != s.run {
			return nil
		}
		s.targets, s.err, s.ti = msg.targets, msg.err, 0
		if t, ok := s.target(); ok {
			s.container = t.Container
		}
		return s.start(a)
	case logNext:
		if msg.id != s.run {
			return nil
		}
		for _, l := range msg.lines {
			s.buf.Add(l)
		}
		if msg.done {
			s.ended, s.err = true, msg.err
			return nil
		}
		return waitLog(msg.ctx, msg.id, msg.ch)
	case unitsChangedMsg:
		// A pod that was not there (an Update not started yet) or a stream
		// that ended (a pod replaced) is looked for again when the unit moves.
		if s.unit != nil && msg.changed[*s.unit] && (len(s.targets) == 0 || s.ended) && !s.previous {
			return s.resolve(a)
		}
	case tea.KeyPressMsg:
		if s.searching {
			return s.searchKey(a, msg)
		}
		return s.press(a, msg)
	}
	return nil
}

func (s *logScreen) press(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	if a.scrollKey(msg, s.scroll, s.bodyHeight()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		if s.query != "" && key.Matches(msg, k.Back) {
			s.query, s.match = "", -1
			return nil
		}
		a.close(s)
	case key.Matches(msg, k.Help):
		a.push(newHelpScreen())
	case key.Matches(msg, k.Follow):
		s.follow = !s.follow
		if !s.follow {
			s.top = max(s.buf.Len()-s.bodyHeight(), 0)
		}
	case key.Matches(msg, k.Container):
		t, ok := s.target()
		switch {
		case !ok:
			a.toastError("no pod yet: there is no container to pick")
		case t.Containers == nil:
			a.toastInfo("Argo CD's API server names no containers: the pod's default is shown")
		case len(t.Containers) < 2:
			a.toastInfo("only one container: " + s.container)
		default:
			s.container = t.Containers[(slices.Index(t.Containers, s.container)+1)%len(t.Containers)]
			return s.start(a)
		}
	case key.Matches(msg, k.PreviousLog):
		s.previous = !s.previous
		return s.start(a)
	case key.Matches(msg, k.Since):
		s.since = logSinces[(slices.Index(logSinces, s.since)+1)%len(logSinces)]
		return s.start(a)
	case key.Matches(msg, k.NextTab):
		if len(s.targets) > 1 {
			s.ti = (s.ti + 1) % len(s.targets)
			s.container = s.targets[s.ti].Container
			return s.start(a)
		}
	case key.Matches(msg, k.Filter):
		s.searching = true
		s.input.SetValue(s.query)
		return s.input.Focus()
	case key.Matches(msg, k.NextObject):
		s.findNext(1)
	case key.Matches(msg, k.PrevObject):
		s.findNext(-1)
	}
	return nil
}

func (s *logScreen) searchKey(a *App, msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		s.searching = false
		s.input.Blur()
		return nil
	case "enter":
		s.searching = false
		s.input.Blur()
		s.query, s.match = s.input.Value(), -1
		s.findNext(1)
		return nil
	}
	var cmd tea.Cmd
	s.input, cmd = updateField(s.input, msg)
	return cmd
}

// findNext moves to the next (or previous) match from the view's top, or
// from the current match; finding one holds the view there.
func (s *logScreen) findNext(dir int) {
	if s.query == "" {
		return
	}
	from := s.match
	if from < 0 {
		from = s.firstShown() - 1
		if dir < 0 {
			from = s.firstShown() + s.bodyHeight()
		}
	}
	i := s.buf.Find(s.query, from, dir)
	s.match = i
	if i < 0 {
		return
	}
	s.follow = false
	h := s.bodyHeight()
	if i < s.top || i >= s.top+h {
		s.top = max(i-h/2, 0)
	}
}

func (s *logScreen) scroll(n int) {
	if s.follow {
		s.top = max(s.buf.Len()-s.bodyHeight(), 0)
	}
	s.top = min(max(s.top+n, 0), max(s.buf.Len()-s.bodyHeight(), 0))
	// Scrolling to the end follows again; scrolling up holds the view.
	s.follow = s.top >= s.buf.Len()-s.bodyHeight() && n > 0
}

// header lines: the pod and the stream's state, and the notice of dropped
// lines or the stream's end.
const logHeaderLines = 2

func (s *logScreen) bodyHeight() int {
	h := s.height - logHeaderLines
	if s.searching {
		h--
	}
	return max(h, 1)
}

func (s *logScreen) firstShown() int {
	if s.follow {
		return max(s.buf.Len()-s.bodyHeight(), 0)
	}
	return min(s.top, max(s.buf.Len()-s.bodyHeight(), 0))
}

func (s *logScreen) view(a *App, _ time.Time) string {
	t := s.theme
	lines := []string{s.titleLine(), s.stateLine()}
	first, h := s.firstShown(), s.bodyHeight()
	for i := first; i < min(first+h, s.buf.Len()); i++ {
		l := s.buf.At(i)
		text := ansi.Truncate(l.Text, s.width, "…")
		switch {
		case i == s.match:
			text = t.Selected.Render(text)
		case l.Notice:
			text = t.Warn.Render(text)
		}
		lines = append(lines, text)
	}
	for len(lines) < logHeaderLines+h {
		lines = append(lines, "")
	}
	if s.searching {
		lines = append(lines, t.FooterKey.Render("search /")+" "+s.input.View())
	}
	return strings.Join(lines, "\n")
}

func (s *logScreen) titleLine() string {
	t := s.theme
	tg, ok := s.target()
	if !ok {
		name := "logs"
		if s.unit != nil {
			name = "logs of " + s.unit.Ref()
		}
		return t.Title.Render(name)
	}
	container := s.container
	if container == "" {
		container = "(the pod's default)"
	}
	parts := []string{t.Title.Render(safetext.Visible(tg.Pod.String())), "container " + t.Bold.Render(safetext.Visible(container))}
	if s.previous {
		parts = append(parts, t.Warn.Render("previous instance"))
	}
	if s.since > 0 {
		// Older lines are left out: said before the rest of the state.
		parts = append(parts, t.Warn.Render("since "+sinceWord(s.since)))
	}
	if s.follow {
		parts = append(parts, t.Good.Render("following"))
	} else {
		parts = append(parts, t.Info.Render("held"))
	}
	if len(s.targets) > 1 {
		parts = append(parts, fmt.Sprintf("pod %d/%d", s.ti+1, len(s.targets)))
	}
	if tg.Why != "" {
		parts = append(parts, t.Dim.Render(safetext.Visible(tg.Why)))
	}
	return ansi.Truncate(strings.Join(parts, " · "), s.width, "…")
}

func (s *logScreen) stateLine() string {
	t := s.theme
	var parts []string
	if s.err != nil {
		parts = append(parts, t.Bad.Render(safetext.Visible(s.err.Error())))
	} else if len(s.targets) == 0 {
		parts = append(parts, t.Dim.Render("finding the pod…"))
	}
	if n := s.buf.Dropped(); n > 0 {
		parts = append(parts, t.Warn.Render(fmt.Sprintf("%d older lines dropped: the view keeps the newest %s", n, byteSize(s.buf.Max()))))
	}
	if s.ended && s.err == nil {
		parts = append(parts, t.Dim.Render("end of log"))
	}
	if s.query != "" {
		n := s.buf.Matches(s.query)
		parts = append(parts, fmt.Sprintf("%d lines match %q", n, safetext.Visible(s.query)))
	}
	if !s.follow {
		if below := s.buf.Len() - s.firstShown() - s.bodyHeight(); below > 0 {
			parts = append(parts, fmt.Sprintf("%d lines below", below))
		}
	}
	return ansi.Truncate(strings.Join(parts, " · "), s.width, "…")
}

func (s *logScreen) keyHelp(a *App) string {
	k := a.keys
	if s.searching {
		return a.hints("enter", "search", "esc", "cancel")
	}
	pairs := []string{k.Back.Help().Key, "back", k.Follow.Help().Key, "follow/hold", k.Container.Help().Key, "container",
		k.PreviousLog.Help().Key, "previous instance", k.Since.Help().Key, "since", k.Filter.Help().Key, "search",
		k.NextObject.Help().Key + "/" + k.PrevObject.Help().Key, "match"}
	if len(s.targets) > 1 {
		pairs = append(pairs, k.NextTab.Help().Key, "next pod")
	}
	return a.hints(append(pairs, k.Help.Help().Key, "help")...)
}

// sinceWord names a since window in the header: "5m", "1h".
func sinceWord(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dm", d/time.Minute)
}

// byteSize says a budget the way people read it.
func byteSize(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", max(n>>10, 1))
}
