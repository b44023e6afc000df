package ui

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/views/list"
)

type tickMsg time.Time

// describeMsg answers the read of the detail screen from.
type describeMsg struct {
	from   *detailScreen
	detail *describe.Detail
	err    error
}

// planMsg answers the plan request id of one dialog.
type planMsg struct {
	id   int
	plan *actions.Plan
	err  error
}

// resultMsg answers the write of dialog id (0: a write without a dialog).
type resultMsg struct {
	id  int
	req actions.Request
	res *actions.Result
	err error
}

type bulkMsg struct {
	id       int
	kind     actions.Kind
	outcomes []actions.BulkOutcome
}

// diffMsg answers the diff of the diff screen from.
type diffMsg struct {
	from   *diffScreen
	result *argodiff.Result
	err    error
}

// settledMsg carries what the check after a write found (a revert).
type settledMsg struct{ warnings []string }

// wroteMsg tells the screens a write to a unit went through.
type wroteMsg struct{ key model.Key }

// listFilterMsg sets the list's filter ("" clears it).
type listFilterMsg struct{ text string }

// listScopeMsg narrows the list: edit changes the scope in force.
type listScopeMsg struct{ edit func(s *list.Scope) }

// listTreeMsg shows the list as a tree (on) or flat.
type listTreeMsg struct{ on bool }

// listSortMsg orders the list.
type listSortMsg struct{ by list.SortMode }
