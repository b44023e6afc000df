package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

const (
	headerLines = 2
	footerLines = 2 // toast or input line, then the key hints
)

func (a *App) render() string {
	now := a.now()
	var body string
	switch {
	case a.help:
		body = a.helpView()
	case a.dialog != nil:
		body = a.dialogView(now)
	case a.diff != nil:
		body = a.diff.view.View()
	case a.preview != nil:
		body = a.preview.view.View()
	case a.detail != nil:
		body = a.detail.View(now)
	default:
		body = a.list.View(now)
	}
	body = fitLines(body, a.bodyHeight(), a.width)
	return strings.Join([]string{a.headerView(now), body, a.statusLine(now), a.footerView()}, "\n")
}

// fitLines makes s exactly h lines, none wider than w.
func fitLines(s string, h, w int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
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
	for _, st := range a.status {
		left = append(left, a.contextBadge(st, now))
	}
	if len(a.status) == 0 {
		left = append(left, t.Dim.Render("connecting…"))
	}
	line1 := ansi.Truncate(strings.Join(left, " "), a.width, "…")

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
	l := a.list
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
	view = append(view, "sort "+l.Sort().String())
	if n := len(l.Marked()); n > 0 {
		view = append(view, t.Marked.Render(fmt.Sprintf("%d marked", n)))
	}
	// What the user narrowed the list by must stay visible: the counts give
	// way first on a narrow screen.
	right := t.Dim.Render(" │ ") + t.Dim.Render(strings.Join(view, "  "))
	room := max(a.width-ansi.StringWidth(right), a.width/2)
	line2 := ansi.Truncate(strings.Join(parts, t.Dim.Render(" · ")), room, "…") + right
	return line1 + "\n" + ansi.Truncate(line2, a.width, "…")
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
		if st.Error != "" {
			s += t.Dim.Render(" · " + st.Error)
		}
	case st.Error != "":
		s += t.Warn.Render("● " + st.Error)
	case !st.Synced:
		s += t.Info.Render("● loading")
	default:
		s += t.Good.Render("● live")
	}
	switch len(st.Missing) {
	case 0:
	case 1:
		for _, why := range st.Missing {
			s += t.Dim.Render(" · " + why)
		}
	default:
		s += t.Warn.Render(" · neither Argo CD nor the Pulumi operator is installed here")
	}
	return s
}

// statusLine shows the input being typed, else the newest toast.
func (a *App) statusLine(now time.Time) string {
	t := a.theme
	switch a.mode {
	case modeFilter:
		return t.Accent.Render("/") + a.input.View()
	case modeCommand:
		return t.Accent.Render(":") + a.input.View()
	}
	for i := len(a.toasts) - 1; i >= 0; i-- {
		if a.toasts[i].until.After(now) {
			st := t.ToastInfo
			if a.toasts[i].err {
				st = t.ToastError
			}
			return st.Render(ansi.Truncate(a.toasts[i].text, max(a.width-2, 1), "…"))
		}
	}
	return ""
}

// footerView lists the keys that work where the user is.
func (a *App) footerView() string {
	k := a.keys
	var bs []key.Binding
	switch {
	case a.help:
		bs = []key.Binding{k.Back}
	case a.dialog != nil && a.dialog.kind == dlgMenu:
		bs = []key.Binding{k.Up, k.Down, k.Open, k.Back}
	case a.dialog != nil && a.dialog.kind == dlgReport:
		return a.theme.FooterDesc.Render("any key closes")
	case a.dialog != nil && a.dialog.focused() != nil:
		return a.hints("enter", "next field", "shift+tab", "previous field", "esc", "cancel")
	case a.dialog != nil:
		return a.hints("y", "yes", "n/esc", "no", "←→", "choose", "enter", "confirm choice", "shift+tab", "edit reason")
	case a.mode == modeCommand:
		return a.hints("enter", "run", "esc", "cancel", "tab", "complete", "↑↓", "history")
	case a.mode == modeFilter:
		return a.hints("enter", "keep filter", "esc", "clear filter")
	case a.diff != nil:
		bs = []key.Binding{k.Back, k.Down, k.Up, k.NextObject, k.PrevObject, k.SideBySide, k.Refresh, k.Approve}
	case a.preview != nil:
		bs = []key.Binding{k.Back, k.Down, k.Up, k.Approve}
	case a.detail != nil:
		bs = append([]key.Binding{k.Back, k.NextTab, k.Up, k.Down, k.Actions, k.Diff}, a.actionHints(a.detail.Unit())...)
		bs = append(bs, k.Help)
	default:
		bs = []key.Binding{k.Open, k.Filter, k.Command, k.Mark, k.Actions, k.Diff}
		bs = append(bs, a.actionHints(a.list.Selected())...)
		bs = append(bs, k.Freeze, k.Sort, k.Help, k.Quit)
	}
	var parts []string
	for _, b := range bs {
		h := b.Help()
		parts = append(parts, a.theme.FooterKey.Render(h.Key)+" "+a.theme.FooterDesc.Render(h.Desc))
	}
	return ansi.Truncate(strings.Join(parts, "  "), a.width, "…")
}

// hints renders key/description pairs.
func (a *App) hints(pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, a.theme.FooterKey.Render(pairs[i])+" "+a.theme.FooterDesc.Render(pairs[i+1]))
	}
	return ansi.Truncate(strings.Join(parts, "  "), a.width, "…")
}

// actionHints are the direct action keys of the unit's engine.
func (a *App) actionHints(u *model.Unit) []key.Binding {
	k := a.keys
	if u == nil {
		return nil
	}
	switch u.Key.Engine {
	case model.EngineArgoCD:
		return []key.Binding{k.Sync, k.Refresh, k.Pause, k.Resume, k.Terminate}
	case model.EnginePulumi:
		return []key.Binding{k.Retry, k.Approve, k.Pause, k.Resume, k.Unlock}
	}
	return nil
}
