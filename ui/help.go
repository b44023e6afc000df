package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/list"
)

// helpScreen lists every binding, action and command; it scrolls.
type helpScreen struct {
	height, offset int
}

func newHelpScreen() *helpScreen { return &helpScreen{} }

func (s *helpScreen) setSize(_, h int)       { s.height = h }
func (s *helpScreen) setTheme(*themes.Theme) {}

func (s *helpScreen) update(a *App, msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if a.scrollKey(km, func(n int) { s.offset = max(s.offset+n, 0) }, s.height) {
		return nil
	}
	if key.Matches(km, a.keys.Back, a.keys.Quit, a.keys.Help) {
		a.close(s)
	}
	return nil
}

func (s *helpScreen) keyHelp(a *App) string {
	return a.keyHints(bindings(a.keys.Back, a.keys.Down, a.keys.Up))
}

func (s *helpScreen) view(a *App, _ time.Time) string {
	lines := s.lines(a)
	s.offset = min(s.offset, max(len(lines)-s.height, 0))
	return strings.Join(lines[s.offset:], "\n")
}

func (s *helpScreen) lines(a *App) []string {
	k, t := a.keys, a.theme
	groups := []struct {
		title string
		bs    []key.Binding
	}{
		{"Move", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Back, k.NextTab, k.PrevTab}},
		{"Find", []key.Binding{k.Filter, k.Command, k.Sort, k.Mark, k.MarkAll}},
		{"Tree", []key.Binding{k.Tree, k.Fold, k.FoldAll}},
		{"Act", []key.Binding{k.Actions, k.RefreshWithSource, k.Freeze, k.Thaw}},
		{"Diff", []key.Binding{k.Diff, k.Drift, k.NextObject, k.PrevObject, k.SideBySide}},
		{"Logs", []key.Binding{k.Logs, k.Follow, k.Container, k.PreviousLog, k.Since}},
		{"Screen", []key.Binding{k.Yaml, k.Wrap, k.Resources, k.Help, k.Redraw, k.Quit, k.ForceQuit}},
	}
	var lines []string
	lines = append(lines, t.Title.Render("Keys"))
	for _, g := range groups {
		var parts []string
		for _, b := range g.bs {
			h := b.Help()
			keys := strings.Join(b.Keys(), "/")
			if keys == "" {
				keys = h.Key
			}
			parts = append(parts, t.FooterKey.Render(keys)+" "+h.Desc)
		}
		lines = append(lines, t.Bold.Render(g.title)+"  "+strings.Join(parts, "   "))
	}
	lines = append(lines, "", t.Title.Render("Actions")+t.Dim.Render("  (marks: acts on the marked units when some are)"))
	for _, sp := range specs() {
		b, ok := a.binding(sp)
		keys := "a"
		if ok {
			keys = b.Help().Key
		}
		var engines []string
		for _, e := range sp.Engines() {
			engines = append(engines, string(e))
		}
		tags := strings.Join(engines, ", ")
		if sp.Bulkable {
			tags += ", marks"
		}
		lines = append(lines, "  "+t.FooterKey.Render(fmt.Sprintf("%-2s", keys))+" "+fmt.Sprintf("%-17s", sp.Kind)+sp.Help+t.Dim.Render(" ("+tags+")"))
	}
	lines = append(lines, "", t.Title.Render("Commands (:)"))
	for _, c := range commands {
		lines = append(lines, "  "+t.FooterKey.Render(":"+c.usage)+"  "+t.Dim.Render(c.help))
	}
	lines = append(lines, "", t.Title.Render("Columns of the list"))
	for _, e := range list.Legend {
		lines = append(lines, "  "+t.Bold.Render(fmt.Sprintf("%-15s", e.Column))+e.Values)
	}
	lines = append(lines, "", t.Title.Render("Filter (/)"),
		"  text or a regular expression, case-insensitive, over each of "+list.FilterFields+": ^ and $ anchor to one of them (api$: names ending in api)",
		"  ! in front inverts it; / again edits the filter in force (ctrl+u starts over); esc clears marks, then the filter, then the : scope",
		"", t.Title.Render("Logs ("+k.Logs.Help().Key+" on a unit's detail or a Pod of its resource tree)"),
		"  a Stack's workspace pod (the running Update's output), an Argo CD operation's hook Job pods, a Terraform's runner pod,",
		"  the Flux controller's lines about a Kustomization or HelmRelease (read as flux logs prints them); tab: next pod",
		fmt.Sprintf("  starts with the last %d lines and keeps the newest %d MiB, saying when older lines were dropped; / searches, n/N move between matches", logTail, logs.DefaultBufferBytes>>20),
		"  values of the Secrets the pod references are masked where driftdeck may read them; the log says which it may not",
		"", t.Title.Render("Marks"),
		"  with units marked, the keys that work in bulk act on the marks (the footer names them), the others refuse until esc clears the marks",
		"", t.Title.Render("Tree ("+k.Tree.Help().Key+", again for the flat list)"),
		"  each unit under its parent: an ApplicationSet or app of apps over its Applications, a Stack over those that name it a prerequisite, a Flux object over those that depend on it",
		"  a parent row counts the units below it, the worst state first; on a parent row the keys that work in bulk, and mark, act on its children (the dialog lists them); "+k.Actions.Help().Key+" acts on the row itself",
		"  a filter or : scope keeps the path to every matching unit",
		"", t.Dim.Render("Destructive actions ask for a reason and a confirmation that defaults to No. Every write is recorded as a Kubernetes Event and in the local audit log."))
	return wrapAll(lines, a.width)
}

func wrapAll(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(wrapANSI(l, w), "\n")...)
	}
	return out
}
