// Package ui is the Bubble Tea root of driftdeck: the screen stack and the
// routing between screens, header and footer, the ":" command bar, confirm
// dialogs and toasts. It reaches the clusters only through Backend.
package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/backend/store"
)

// Backend is everything the UI may ask of the backend.
type Backend interface {
	Available(ctx context.Context, u *model.Unit) []model.Availability
	// Plan says what a request would write; Send writes that plan as shown
	// (or answers *actions.PlanChanged, writing nothing).
	Plan(ctx context.Context, req actions.Request) (*actions.Plan, error)
	Send(ctx context.Context, p *actions.Plan) (*actions.Result, error)
	// Execute plans and writes a request nobody reviews (a refresh).
	Execute(ctx context.Context, req actions.Request) (*actions.Result, error)
	Bulk(ctx context.Context, r actions.BulkRequest) []actions.BulkOutcome
	// OwnerWrites reads what a bulk pause or resume would write to the
	// ApplicationSets owning its units, for the confirm dialog.
	OwnerWrites(ctx context.Context, r actions.BulkRequest) []actions.OwnerWrite
	Settled(ctx context.Context, res *actions.Result) []string
	Describe(ctx context.Context, k model.Key) (*describe.Detail, error)
	Diff(ctx context.Context, k model.Key) (*argodiff.Result, error)
	// ResourceTree reads an Application's resources with the live objects
	// they own on its destination.
	ResourceTree(ctx context.Context, k model.Key) (*restree.Tree, error)
	Preview(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error)
	Approve(ctx context.Context, r *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, *stackops.Done, error)
	// DriftCheck runs a Stack's refresh preview and marks the unit with
	// what it found.
	DriftCheck(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.DriftReport, error)
	PlanUnstick(ctx context.Context, k model.Key, clearPending, force bool) (*stackops.Unstick, error)
	Apply(ctx context.Context, u *stackops.Unstick, reason string) (*stackops.Done, error)
	// ChangeRequests are those the live model holds; Review adds the user's
	// review of one as shown (a reject of their own cancels it).
	ChangeRequests() []changereq.Listed
	// Ask stores a plan shown in a new change request, in the user's name.
	Ask(ctx context.Context, p *actions.Plan) (*changereq.ChangeRequest, error)
	Review(ctx context.Context, l changereq.Listed, decision, reason string) (*changereq.ChangeRequest, error)
	// PlanRoot runs a root module's plan and saves it (Diff then shows
	// it); ApplyRoot applies exactly the saved plan id; UnlockRoot breaks
	// exactly the lock id. done says what was done when not simply that.
	PlanRoot(ctx context.Context, k model.Key) (*rootmod.Saved, error)
	ApplyRoot(ctx context.Context, k model.Key, id, reason string) (done string, err error)
	UnlockRoot(ctx context.Context, k model.Key, id, reason string) (done string, err error)
}

// BatchMsg carries a batch of model changes from the store's pump.
type BatchMsg store.Batch

// findPulumiCLI is the lookup previews use, replaced in tests.
var findPulumiCLI = pulumirun.FindCLI

func errGone(k model.Key) error { return errors.New(k.Ref() + " is gone from the cluster") }

// ownerWritesMsg is what a bulk dialog's pause or resume writes to the
// ApplicationSets, read when it opened.
type ownerWritesMsg struct {
	id     int
	writes []actions.OwnerWrite
}

func (a *App) readOwnerWrites(id int, kind actions.Kind, units []*model.Unit) tea.Cmd {
	if kind != actions.Pause && kind != actions.Resume {
		return nil
	}
	keys := make([]model.Key, len(units))
	for i, u := range units {
		keys[i] = u.Key
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		return ownerWritesMsg{id: id, writes: be.OwnerWrites(ctx, actions.BulkRequest{Kind: kind, Keys: keys})}
	}
}

// executeBulk runs a bulk action; each unit whose plan was shown for what
// is confirmed is written as shown.
func (a *App) executeBulk(id int, kind actions.Kind, units []*model.Unit, reason string, until time.Time, shown map[model.Key]*actions.Plan) tea.Cmd {
	keys := make([]model.Key, len(units))
	for i, u := range units {
		keys[i] = u.Key
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		return bulkMsg{id: id, kind: kind, outcomes: be.Bulk(ctx, actions.BulkRequest{Kind: kind, Keys: keys, Reason: reason, Until: until, Shown: shown})}
	}
}

// samePlannedVersions reports whether two plans were made from the same
// versions of every object they write.
func samePlannedVersions(a, b *actions.Plan) bool {
	if a == nil || b == nil || a.ResourceVersion != b.ResourceVersion || len(a.Also) != len(b.Also) {
		return false
	}
	for i := range a.Also {
		if a.Also[i].Object != b.Also[i].Object || a.Also[i].ResourceVersion != b.Also[i].ResourceVersion {
			return false
		}
	}
	return true
}

// planChanged reads the write's refusal because the object moved on since
// the plan was shown: the new plan and what differs.
func planChanged(err error) (*actions.Plan, []string, bool) {
	var pc *actions.PlanChanged
	if !errors.As(err, &pc) {
		return nil, nil, false
	}
	return pc.Plan, pc.Changes, true
}

// settleCmd checks, after a write, that an owner did not revert it; what it
// finds comes back as a toast.
func (a *App) settleCmd(res *actions.Result) tea.Cmd {
	if res == nil || res.MayRevert == "" {
		return nil
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg { return settledMsg{warnings: be.Settled(ctx, res)} }
}

// approvePlan applies a reviewed plan; in dry-run it says what it would do.
func approvePlan(ctx context.Context, be Backend, rv *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, string, error) {
	res, done, err := be.Approve(ctx, rv, reason, onEvent)
	return res, didText(done), err
}

// applyUnstick carries out a planned unstick; done says what it did when
// that is not simply "unstuck" (in dry-run: what it would have done).
func applyUnstick(ctx context.Context, be Backend, p *stackops.Unstick, reason string) (string, error) {
	done, err := be.Apply(ctx, p, reason)
	return didText(done), err
}

func didText(d *stackops.Done) string {
	if d == nil || !d.DryRun {
		return ""
	}
	return "dry run, nothing written; would: " + strings.Join(d.Did, "; ")
}
