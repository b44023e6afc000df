// Package keymap holds every key binding of driftdeck in one place. Users
// override bindings by name in the config file (keys: {sync: ["S"]}).
package keymap

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// Keymap is the set of bindings. Field names are the names users override.
type Keymap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open, Back, Quit, ForceQuit, Help       key.Binding
	Filter, Command, Mark, MarkAll, Sort    key.Binding
	Redraw, NextTab, PrevTab                key.Binding
	Actions, Sync, Approve, Reject, Refresh key.Binding
	HardRefresh, Terminate, Pause, Resume   key.Binding
	Retry, Rollback, ConfirmPrune, Diff     key.Binding
	Drift                                   key.Binding
	Freeze, Thaw, Yaml, Wrap                key.Binding
	NextObject, PrevObject, SideBySide      key.Binding
	Unlock, Force, Reset, Replan            key.Binding
	ForceUnlock, Resources                  key.Binding
	RefreshWithSource                       key.Binding
	Tree, Fold, FoldAll                     key.Binding
	Logs, Follow, Container, PreviousLog    key.Binding
	Since                                   key.Binding
	Confirm, Cancel                         key.Binding
	// A dialog's fields, options and buttons.
	NextField, PrevField, Tick, Choose key.Binding
}

// Default returns the built-in bindings, close to k9s and less.
func Default() *Keymap {
	b := func(help string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], help))
	}
	return &Keymap{
		Up:           b("up", "k", "up"),
		Down:         b("down", "j", "down"),
		PageUp:       b("page up", "pgup", "ctrl+u", "ctrl+b"),
		PageDown:     b("page down", "pgdown", "ctrl+d", "ctrl+f"),
		Top:          b("top", "g", "home"),
		Bottom:       b("bottom", "G", "end"),
		Open:         b("open", "enter"),
		Back:         b("back", "esc"),
		Quit:         b("quit", "q"),
		ForceQuit:    b("quit now", "ctrl+c"),
		Help:         b("help", "?"),
		Filter:       b("filter", "/"),
		Command:      b("command", ":"),
		Mark:         b("mark", "space"),
		MarkAll:      b("mark all shown", "ctrl+a"),
		Sort:         b("sort", "o"),
		Redraw:       b("redraw", "ctrl+l"),
		NextTab:      b("next tab", "tab", "l", "right"),
		PrevTab:      b("prev tab", "shift+tab", "h", "left"),
		Actions:      b("actions", "a"),
		Sync:         b("sync", "s"),
		Approve:      b("approve", "A"),
		Reject:       b("reject", "D"),
		Refresh:      b("refresh", "r"),
		HardRefresh:  b("hard refresh", "R"),
		Terminate:    b("terminate", "T"),
		Pause:        b("pause", "p"),
		Resume:       b("resume", "u"),
		Retry:        b("retry", "x"),
		Rollback:     b("rollback", "B"),
		ConfirmPrune: b("confirm prune", "C"),
		Diff:         b("diff / preview", "d"),
		// D rejects on the change requests screen, where no unit is under the cursor.
		Drift:       b("drift check (Pulumi)", "D"),
		Freeze:      b("freeze", "F"),
		Thaw:        b("thaw", "U"),
		Yaml:        b("yaml", "y"),
		Wrap:        b("whole lines (wrap)", "e"),
		NextObject:  b("next object", "n"),
		PrevObject:  b("previous object", "N"),
		SideBySide:  b("side by side", "v"),
		Unlock:      b("unlock", "L"),
		Force:       b("force", "f"),
		Reset:       b("reset", "X"),
		Replan:      b("replan", "P"),
		ForceUnlock: b("force unlock", "K"),
		Resources:   b("resources", "w"),
		Tree:        b("tree", "t"),
		Fold:        b("open/fold row", "z"),
		FoldAll:     b("open/fold all", "Z"),
		Logs:        b("logs", "O"),
		Follow:      b("follow", "S"),
		Container:   b("container", "c"),
		PreviousLog: b("previous container", "b"),
		Since:       b("since 1m/5m/15m/1h/all", "m"),
		Confirm:     b("yes", "y"),
		Cancel:      b("no", "n", "esc"),
		NextField:   b("next field", "enter", "tab"),
		PrevField:   b("previous field", "shift+tab"),
		Tick:        b("tick / untick", "space", "x"),
		Choose:      key.NewBinding(key.WithKeys("left", "right", "h", "l"), key.WithHelp("←→", "choose")),

		// flux reconcile --with-source: the source first, then the unit.
		RefreshWithSource: b("reconcile with source", "W"),
	}
}

// bindings maps the lower-case field names to the bindings, for overrides.
func (k *Keymap) bindings() map[string]*key.Binding {
	return map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "pageup": &k.PageUp, "pagedown": &k.PageDown, "top": &k.Top, "bottom": &k.Bottom,
		"open": &k.Open, "back": &k.Back, "quit": &k.Quit, "forcequit": &k.ForceQuit, "help": &k.Help,
		"filter": &k.Filter, "command": &k.Command, "mark": &k.Mark, "markall": &k.MarkAll, "sort": &k.Sort,
		"redraw": &k.Redraw, "nexttab": &k.NextTab, "prevtab": &k.PrevTab,
		"actions": &k.Actions, "sync": &k.Sync, "approve": &k.Approve, "reject": &k.Reject, "refresh": &k.Refresh,
		"hardrefresh": &k.HardRefresh, "terminate": &k.Terminate, "pause": &k.Pause, "resume": &k.Resume,
		"retry": &k.Retry, "rollback": &k.Rollback, "confirmprune": &k.ConfirmPrune, "diff": &k.Diff, "drift": &k.Drift,
		"freeze": &k.Freeze, "thaw": &k.Thaw, "yaml": &k.Yaml, "wrap": &k.Wrap, "confirm": &k.Confirm, "cancel": &k.Cancel,
		"nextobject": &k.NextObject, "prevobject": &k.PrevObject, "sidebyside": &k.SideBySide, "unlock": &k.Unlock,
		"force": &k.Force, "reset": &k.Reset, "replan": &k.Replan, "forceunlock": &k.ForceUnlock,
		"refreshwithsource": &k.RefreshWithSource,
		"resources":         &k.Resources, "tree": &k.Tree, "fold": &k.Fold, "foldall": &k.FoldAll,
		"logs": &k.Logs, "follow": &k.Follow, "container": &k.Container, "previouslog": &k.PreviousLog,
		"since": &k.Since, "nextfield": &k.NextField, "prevfield": &k.PrevField, "tick": &k.Tick, "choose": &k.Choose,
	}
}

// Binding is the binding a name stands for, spelled as in the config file
// ("hard-refresh", "hardrefresh"): how the action table names its keys.
func (k *Keymap) Binding(name string) (key.Binding, bool) {
	b, ok := k.bindings()[strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))]
	if !ok {
		return key.Binding{}, false
	}
	return *b, true
}

// Override rebinds named bindings. Names are case-insensitive and may use
// dashes or underscores ("hard-refresh"). An unknown name is an error, so a
// typo in the config file is reported instead of silently ignored.
func (k *Keymap) Override(overrides map[string][]string) error {
	all := k.bindings()
	var unknown []string
	for name, keys := range overrides {
		n := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
		b, ok := all[n]
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		if len(keys) == 0 {
			return fmt.Errorf("keymap: %q has no keys", name)
		}
		b.SetKeys(keys...)
		b.SetHelp(keys[0], b.Help().Desc)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names := make([]string, 0, len(all))
		for n := range all {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("keymap: unknown binding(s) %s (known: %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return nil
}
