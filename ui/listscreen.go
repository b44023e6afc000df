package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/detail"
	"github.com/driftdeck/driftdeck/views/list"
)

// listScreen is the bottom of the stack: every unit, filtered and scoped.
type listScreen struct{ m *list.Model }

func newListScreen(t *themes.Theme) *listScreen { return &listScreen{m: list.New(t)} }

func (s *listScreen) setSize(w, h int)         { s.m.SetSize(w, h) }
func (s *listScreen) setTheme(t *themes.Theme) { s.m.SetTheme(t) }

func (s *listScreen) view(_ *App, now time.Time) string { return s.m.View(now) }

func (s *listScreen) update(a *App, msg tea.Msg) tea.Cmd {
	var km tea.KeyPressMsg
	switch msg := msg.(type) {
	case bulkMsg:
		// A bulk action ran on the marked units: the marks are used.
		s.m.ClearMarks()
		return nil
	case listFilterMsg:
		s.m.SetFilter(msg.text)
		return nil
	case listScopeMsg:
		scope := s.m.Scope()
		msg.edit(&scope)
		s.m.SetScope(scope)
		return nil
	case listTreeMsg:
		s.m.SetTree(msg.on)
		return nil
	case listSortMsg:
		s.m.SetSort(msg.by)
		return nil
	case tea.KeyPressMsg:
		km = msg
	default:
		return nil
	}
	k, l := a.keys, s.m
	if a.scrollKey(km, l.Move, l.Page()) {
		return a.prefetch(l.Selected())
	}
	if cmd, handled := a.actionKey(km, s); handled {
		return cmd
	}
	switch {
	case key.Matches(km, k.Open):
		return a.open(detailOf{l.Selected(), detail.Overview})
	case key.Matches(km, k.Yaml):
		return a.open(detailOf{l.Selected(), detail.YAML})
	case key.Matches(km, k.Help):
		a.push(newHelpScreen())
	case key.Matches(km, k.Command):
		return a.startInput(modeCommand, "")
	case key.Matches(km, k.Filter):
		return a.startInput(modeFilter, l.Filter().Text)
	case key.Matches(km, k.Mark):
		l.ToggleMark()
	case key.Matches(km, k.MarkAll):
		l.MarkShown()
	case key.Matches(km, k.Tree):
		l.SetTree(!l.Tree())
		if l.Tree() {
			a.toastInfo("tree: each unit under its parent; " + k.Fold.Help().Key + " opens/folds a row, " + k.FoldAll.Help().Key + " all, " + k.Tree.Help().Key + " the flat list")
		} else {
			a.toastInfo("flat list")
		}
	case key.Matches(km, k.Fold, k.FoldAll) && !l.Tree():
		a.toastInfo(k.Fold.Help().Key + " and " + k.FoldAll.Help().Key + " fold rows of the tree: " + k.Tree.Help().Key + " shows it")
	case key.Matches(km, k.Fold):
		l.ToggleFold()
	case key.Matches(km, k.FoldAll):
		l.ToggleFoldAll()
	case key.Matches(km, k.Sort):
		l.SetSort((l.Sort() + 1) % (list.ByAge + 1))
		a.toastInfo("sorted by " + l.Sort().String())
	case key.Matches(km, k.Back):
		s.clearOneLayer()
	case key.Matches(km, k.Quit):
		return tea.Quit
	}
	return nil
}

// clearOneLayer undoes the most recent narrowing: marks, then the filter,
// then the scope.
func (s *listScreen) clearOneLayer() {
	l := s.m
	switch {
	case len(l.Marked()) > 0:
		l.ClearMarks()
	case l.Filter().Active():
		l.SetFilter("")
	case l.Scope() != (list.Scope{}):
		l.SetScope(list.Scope{})
	}
}

func (s *listScreen) keyHelp(a *App) string {
	k := a.keys
	if marked := s.m.Marked(); len(marked) > 0 {
		// Which units a key acts on must never be a guess.
		return a.hints(fmt.Sprintf("%d marked:", len(marked)), strings.Join(a.bulkKeys(marked), " ")+" act on the marks",
			k.Freeze.Help().Key+"/"+k.Thaw.Help().Key, "freeze/thaw them", k.Mark.Help().Key, "mark", "esc", "clear marks")
	}
	if parent, children, ok := s.m.Targets(); ok {
		// On a parent row the bulk keys act on its children: say so.
		return a.hints(fmt.Sprintf("%d children of %s:", len(children), parent.Key.Name), strings.Join(a.bulkKeys(children), " ")+" act on them",
			k.Freeze.Help().Key+"/"+k.Thaw.Help().Key, "freeze/thaw them", k.Mark.Help().Key, "mark them", k.Fold.Help().Key, "open/fold",
			k.Actions.Help().Key, "actions of the row itself", k.Tree.Help().Key, "flat list")
	}
	tree := k.Tree
	if s.m.Tree() {
		tree = key.NewBinding(key.WithKeys(k.Tree.Keys()...), key.WithHelp(k.Tree.Help().Key, "flat"))
	}
	hs := []hint{hintOf(k.Open, keepAlways), hintOf(k.Filter, keepHigh), hintOf(k.Command, keepHigh), hintOf(k.Mark, keepLow),
		hintOf(k.Actions, keepHigh), hintOf(k.Diff, keepMid)}
	hs = append(hs, a.actionHintsOf(s.m.Selected())...)
	hs = append(hs, hintOf(k.Freeze, keepLow), hintOf(k.Sort, keepLow), hintOf(k.Help, keepAlways), hintOf(tree, keepLow), hintOf(k.Quit, keepLeast))
	return a.fitHints(hs)
}
