package ui

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
)

type tickMsg time.Time

type availMsg struct {
	key   model.Key
	avail []actions.Availability
}

type describeMsg struct {
	key    model.Key
	detail *describe.Detail
	err    error
}

type planMsg struct {
	seq  int
	plan *actions.Plan
	err  error
}

type resultMsg struct {
	req actions.Request
	res *actions.Result
	err error
}

type bulkMsg struct {
	kind     actions.Kind
	outcomes []actions.BulkOutcome
}

type diffMsg struct {
	key    model.Key
	result *argodiff.Result
	err    error
}
