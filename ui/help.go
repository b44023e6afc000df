package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// helpView lists every binding and command.
func (a *App) helpView() string {
	k, t := a.keys, a.theme
	groups := []struct {
		title string
		bs    []key.Binding
	}{
		{"Move", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Back, k.NextTab, k.PrevTab}},
		{"Find", []key.Binding{k.Filter, k.Command, k.Sort, k.Mark, k.MarkAll}},
		{"Act", []key.Binding{k.Actions, k.Sync, k.Approve, k.Refresh, k.HardRefresh, k.Terminate, k.Pause, k.Resume, k.Retry, k.Rollback, k.ConfirmPrune, k.Unlock, k.Freeze, k.Thaw}},
		{"Diff", []key.Binding{k.Diff, k.NextObject, k.PrevObject, k.SideBySide}},
		{"Screen", []key.Binding{k.Yaml, k.Help, k.Redraw, k.Quit, k.ForceQuit}},
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
	lines = append(lines, "", t.Title.Render("Commands (:)"))
	for _, c := range commands {
		lines = append(lines, "  "+t.FooterKey.Render(":"+c.usage)+"  "+t.Dim.Render(c.help))
	}
	lines = append(lines, "", t.Title.Render("Filter (/)"),
		"  text or a regular expression, case-insensitive, over engine/namespace/name, states, reason, project",
		"  ! in front inverts it; esc clears marks, then the filter, then the : scope",
		"", t.Dim.Render("Destructive actions ask for a reason and a confirmation that defaults to No. Every write is recorded as a Kubernetes Event and in the local audit log."))
	return strings.Join(wrapAll(lines, a.width), "\n")
}

func wrapAll(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(wrapANSI(l, w), "\n")...)
	}
	return out
}
