package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/store"
)

const (
	footerLines = 1 // the key hints
	// maxMessageLines bounds how many lines an error may take from the
	// body, in the header and in the status line.
	maxMessageLines = 4
)

func (a *App) render() string {
	now := a.now()
	header := a.headerView(now)
	status := a.statusLine(now)
	body := a.height - strings.Count(header, "\n") - 1 - strings.Count(status, "\n") - 1 - footerLines
	if body = max(body, 1); body != a.lastBody {
		a.lastBody = body
		a.layout()
	}
	view := a.body.fit(a.top().view(a, now), body, a.width)
	return strings.Join([]string{header, view, status, ansi.Truncate(a.top().keyHelp(a), a.width, "…")}, "\n")
}

// bodyHeight is what is left between the header and the footer, as the
// last frame had it.
func (a *App) bodyHeight() int {
	if a.lastBody == 0 {
		return max(a.height-4, 1)
	}
	return a.lastBody
}

// wrapped wraps a message to the width, at most maxMessageLines lines.
func (a *App) wrapped(s string, st lipgloss.Style) []string {
	lines := strings.Split(wrapANSI(s, a.width), "\n")
	if len(lines) > maxMessageLines {
		lines = append(lines[:maxMessageLines-1], ansi.Truncate(lines[maxMessageLines-1], max(a.width-1, 1), "…"))
	}
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

func (a *App) headerView(now time.Time) string {
	t := a.theme
	var left []string
	left = append(left, t.Title.Render("driftdeck"))
	if a.opts.Demo {
		left = append(left, t.DemoBadge.Render("DEMO"))
	}
	if a.opts.ReadOnly {
		left = append(left, t.Badge.Render("READ-ONLY"))
	}
	if a.opts.DryRun {
		left = append(left, t.Badge.Render("DRY-RUN"))
	}
	var errs []string
	for _, st := range a.status {
		if st.Error != "" {
			errs = append(errs, st.Context+": "+safetext.Visible(st.Error))
		}
	}
	used := ansi.StringWidth(strings.Join(left, " "))
	left = append(left, a.contextBadges(now, a.width-used-1)...)
	switch {
	case len(a.status) == 0 && a.counts.total > 0:
		left = append(left, t.Dim.Render("no cluster: root modules only"))
	case len(a.status) == 0:
		left = append(left, t.Dim.Render("connecting…"))
	}
	lines := []string{ansi.Truncate(strings.Join(left, " "), a.width, "…")}
	// A context's error is read whole, under the badges.
	for _, e := range errs {
		lines = append(lines, a.wrapped(e, t.Warn)...)
	}

	c := a.counts
	parts := []string{fmt.Sprintf("%d units", c.total)}
	add := func(n int, word string, st lipgloss.Style) {
		if n > 0 {
			parts = append(parts, st.Render(fmt.Sprintf("%d %s", n, word)))
		}
	}
	add(c.stuck, "stuck", t.Bad)
	add(c.failed, "failed", t.Bad)
	add(c.blocked, "blocked", t.Warn)
	add(c.awaiting, "awaiting", t.Info)
	add(c.drifted, "drifted", t.Warn)
	add(c.paused, "paused", t.Warn)
	add(c.expired, "pause expired", t.Bad)
	add(a.awaitingReview(now), "await your review (:requests)", t.Info)
	l := a.list().m
	view := []string{}
	if shown := len(l.Shown()); shown != c.total {
		view = append(view, fmt.Sprintf("showing %d", shown))
	}
	if s := l.Scope().Describe(); s != "" {
		view = append(view, ":"+s)
	}
	if f := l.Filter(); f.Active() {
		view = append(view, "/"+f.Text)
	}
	if l.Tree() {
		view = append(view, "tree")
	}
	view = append(view, "sort "+l.Sort().String())
	if n := len(l.Marked()); n > 0 {
		view = append(view, t.Marked.Render(fmt.Sprintf("%d marked", n)))
	}
	// What the user narrowed the list by must stay visible: the counts give
	// way first on a narrow screen.
	right := t.Dim.Render(" │ ") + t.Dim.Render(strings.Join(view, "  "))
	room := max(a.width-ansi.StringWidth(right), a.width/2)
	line2 := ansi.Truncate(strings.Join(parts, t.Dim.Render(" · ")), room, "…") + right
	lines = append(lines, ansi.Truncate(line2, a.width, "…"))
	return strings.Join(lines, "\n")
}

// contextBadges are the contexts' badges in width cells: every one in
// the order given when they fit; else the contexts that are not live
// first (disconnected, in error, loading), so that none of them is ever
// cut off the header, then live ones while they fit, then how many were
// left out. Only the badges drawn are rendered.
func (a *App) contextBadges(now time.Time, width int) []string {
	rendered := make([]string, len(a.status))
	badge := func(i int) string {
		if rendered[i] == "" {
			rendered[i] = a.contextBadge(a.status[i], now)
		}
		return rendered[i]
	}
	used, fit := -1, true
	for i := range a.status {
		if used += 1 + ansi.StringWidth(badge(i)); used > width {
			fit = false
			break
		}
	}
	if fit {
		return rendered
	}
	order := make([]int, 0, len(a.status))
	for _, live := range []bool{false, true} {
		for i, st := range a.status {
			if isLive(st) == live {
				order = append(order, i)
			}
		}
	}
	var badges []string
	used = -1
	for k, i := range order {
		b := badge(i)
		need := used + 1 + ansi.StringWidth(b)
		room := width
		if after := order[k+1:]; len(after) > 0 {
			room -= 1 + len(a.leftOut(after))
		}
		if k > 0 && need > room {
			return append(badges, a.theme.Dim.Render(a.leftOut(order[k:])))
		}
		if need > room {
			// The first badge alone is wider: it gives way to the count.
			b = ansi.Truncate(b, max(room, 1), "…")
		}
		badges = append(badges, b)
		used += 1 + ansi.StringWidth(b)
	}
	return badges
}

// isLive tells a context that is connected, listed and without an error.
func isLive(st store.ContextStatus) bool { return st.Connected && st.Synced && st.Error == "" }

// leftOut says how many contexts (of a.status, by index) the header
// leaves out, and how many of them are not live when some are.
func (a *App) leftOut(rest []int) string {
	notLive := 0
	for _, i := range rest {
		if !isLive(a.status[i]) {
			notLive++
		}
	}
	if notLive == 0 {
		return fmt.Sprintf("+%d more live", len(rest))
	}
	return fmt.Sprintf("+%d more (%d not live)", len(rest), notLive)
}

func (a *App) contextBadge(st store.ContextStatus, now time.Time) string {
	t := a.theme
	who := st.Identity
	if who == "" {
		who = "…"
	}
	s := t.Bold.Render(st.Context) + t.Dim.Render(" ("+who+")") + " "
	switch {
	case !st.Connected:
		age := "never"
		if !st.LastEvent.IsZero() {
			age = model.HumanDuration(now.Sub(st.LastEvent)) + " ago"
		}
		s += t.Bad.Render(fmt.Sprintf("● DISCONNECTED %s, data is STALE (last event %s)", model.HumanDuration(now.Sub(st.Since)), age))
	case st.Error != "":
		s += t.Warn.Render("● error (below)")
	case !st.Synced:
		s += t.Info.Render("● loading")
	default:
		s += t.Good.Render("● live")
	}
	if st.Route != "" {
		s += t.Dim.Render(" · " + safetext.Visible(st.Route))
	}
	if notice := st.NotShown(); notice != "" {
		// Partial rights are normal: said, in the colour of a notice.
		s += t.Warn.Render(" · " + safetext.Visible(notice))
	}
	if notice, none := missingNotice(st.Missing); none {
		s += t.Warn.Render(" · " + notice)
	} else if notice != "" {
		s += t.Dim.Render(" · " + notice)
	}
	return s
}

// missingNotice says which engines a context lacks: one by its reason
// (which names the resource looked for), several by name, Flux's two
// controllers as "Flux" when both are missing. none reports that no engine
// driftdeck reads is installed at all.
func missingNotice(missing map[string]string) (notice string, none bool) {
	if len(missing) == 1 {
		for _, why := range missing {
			return why, false
		}
	}
	var names []string
	has := func(e model.Engine) bool { _, ok := missing[string(e)]; return ok }
	flux := has(model.EngineKustomization) && has(model.EngineHelmRelease)
	for _, e := range model.ClusterEngines() {
		switch {
		case !has(e):
		case flux && e == model.EngineKustomization:
			names = append(names, "Flux")
		case flux && e == model.EngineHelmRelease:
		default:
			names = append(names, model.InfoOf(e).Controller)
		}
	}
	switch {
	case len(names) == 0:
		return "", false
	case len(missing) >= len(model.ClusterEngines()):
		return "none of " + orList(names) + " is installed here", true
	}
	return "not installed here: " + strings.Join(names, ", "), false
}

// orList joins names as a sentence does: "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// statusLine shows the input being typed, else the newest toast, an error
// wrapped whole.
func (a *App) statusLine(now time.Time) string {
	t := a.theme
	switch a.bar.mode {
	case modeFilter:
		return a.promptLine("/", a.bar.note())
	case modeCommand:
		return a.promptLine(":", a.bar.note())
	}
	if a.pending != nil {
		return t.Dim.Render(ansi.Truncate(a.pending.what, max(a.width-2, 1), "…"))
	}
	for i := len(a.toasts) - 1; i >= 0; i-- {
		if a.toasts[i].until.After(now) && a.toasts[i].owner == a.top() {
			if a.toasts[i].err {
				return strings.Join(a.wrapped(a.toasts[i].text, t.ToastError), "\n")
			}
			return t.ToastInfo.Render(ansi.Truncate(a.toasts[i].text, max(a.width-2, 1), "…"))
		}
	}
	return ""
}

// promptLine is the input bar with a note after what is typed.
func (a *App) promptLine(prompt, note string) string {
	t := a.theme
	if note == "" {
		return t.Accent.Render(prompt) + a.bar.input.View()
	}
	// The input pads itself to its width: the note needs room after it.
	in := a.bar.input
	in.SetWidth(max(a.width-2-ansi.StringWidth(note), 10))
	return ansi.Truncate(t.Accent.Render(prompt)+in.View()+t.Dim.Render(note), a.width, "…")
}

func bindings(bs ...key.Binding) []key.Binding { return bs }

// keyHints renders bindings as the footer shows them.
func (a *App) keyHints(bs []key.Binding) string {
	var pairs []string
	for _, b := range bs {
		h := b.Help()
		pairs = append(pairs, h.Key, h.Desc)
	}
	return a.hints(pairs...)
}

// hints renders key/description pairs.
func (a *App) hints(pairs ...string) string {
	return a.hintsDrawn.get(a.theme, a.width, pairs, func() string {
		var parts []string
		for i := 0; i+1 < len(pairs); i += 2 {
			parts = append(parts, a.theme.FooterKey.Render(pairs[i])+" "+a.theme.FooterDesc.Render(pairs[i+1]))
		}
		return ansi.Truncate(strings.Join(parts, "  "), a.width, "…")
	})
}
