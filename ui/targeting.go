package ui

import (
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/views/detail"
)

// targeting is a screen whose keys act on units: it names them itself, so
// that the keys shared by several screens (actionKey) ask the screen rather
// than test which one it is.
type targeting interface {
	// cursorUnit is the unit the user is looking at (nil when none is).
	cursorUnit() *model.Unit
	// marked are the units marked for the keys that work in bulk.
	marked() []*model.Unit
	// parentTargets are the shown children of the tree's parent row under
	// the cursor; ok is false on any other row.
	parentTargets() (parent *model.Unit, children []*model.Unit, ok bool)
}

// historyPicker is a screen on which an Argo CD history entry is picked,
// the one a rollback goes back to.
type historyPicker interface {
	pickedHistory() (id int64, ok bool)
	showHistory()
}

func (s *listScreen) cursorUnit() *model.Unit { return s.m.Selected() }
func (s *listScreen) marked() []*model.Unit   { return s.m.Marked() }
func (s *listScreen) parentTargets() (*model.Unit, []*model.Unit, bool) {
	return s.m.Targets()
}

func (s *detailScreen) cursorUnit() *model.Unit { return s.m.Unit() }
func (s *detailScreen) marked() []*model.Unit   { return nil }
func (s *detailScreen) parentTargets() (*model.Unit, []*model.Unit, bool) {
	return nil, nil, false
}

func (s *detailScreen) pickedHistory() (int64, bool) {
	h, ok := s.m.SelectedHistory()
	return h.ID, ok
}

func (s *detailScreen) showHistory() { s.m.ShowTab(detail.History) }
