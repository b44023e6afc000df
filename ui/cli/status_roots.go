package cli

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// rootJSON is what a script acts on of a root module: its state, the lock
// with the id a force-unlock names, and the last plan with the id an
// approve names. Output values are not included (names only).
type rootJSON struct {
	Dir        string        `json:"dir"`
	Backend    string        `json:"backend,omitempty"`
	Serial     int64         `json:"serial"`
	Lineage    string        `json:"lineage,omitempty"`
	WrittenAt  *time.Time    `json:"writtenAt,omitempty"`
	Resources  int           `json:"resources"`
	Outputs    []string      `json:"outputs,omitempty"`
	Lock       *rootLockJSON `json:"lock,omitempty"`
	LockUnread string        `json:"lockUnread,omitempty"`
	Plan       *rootPlanJSON `json:"plan,omitempty"`
	ReadError  string        `json:"readError,omitempty"`
}

type rootLockJSON struct {
	ID        string    `json:"id"`
	Who       string    `json:"who,omitempty"`
	Operation string    `json:"operation,omitempty"`
	Created   time.Time `json:"created"`
}

type rootPlanJSON struct {
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	By      string    `json:"by,omitempty"`
	Serial  int64     `json:"serial"`
	Changes bool      `json:"changes"`
	Summary string    `json:"summary,omitempty"`
	Applied bool      `json:"applied"`
	// Current: made against the state the workspace has now.
	Current bool `json:"current"`
}

func rootRecord(f *model.RootFacts) *rootJSON {
	if f == nil {
		return nil
	}
	r := &rootJSON{Dir: f.Dir, Backend: f.Backend, Serial: f.Serial, Lineage: f.Lineage, Resources: len(f.Resources), LockUnread: f.LockUnread, ReadError: f.ReadError}
	if !f.AppliedAt.IsZero() {
		t := f.AppliedAt.UTC()
		r.WrittenAt = &t
	}
	for _, o := range f.Outputs {
		r.Outputs = append(r.Outputs, o.Name)
	}
	if l := f.Lock; l != nil {
		r.Lock = &rootLockJSON{ID: l.ID, Who: l.Who, Operation: l.Operation, Created: l.Created.UTC()}
	}
	if p := f.Plan; p != nil {
		r.Plan = &rootPlanJSON{ID: p.ID, At: p.At.UTC(), By: p.By, Serial: p.Serial, Changes: p.Changes, Summary: p.Summary, Applied: p.Applied,
			Current: p.Serial == f.Serial && p.Lineage == f.Lineage}
	}
	return r
}
