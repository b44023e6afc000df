package actions

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Plan is exactly what an action will write, computed from a fresh read of
// the object. Confirm dialogs and --dry-run show it; Execute writes it.
type Plan struct {
	Request Request
	// Summary is one line: what happens to which unit.
	Summary string
	// Changes lists each field written, as "path: old → new".
	Changes []string
	// Warnings are what the user must know before confirming (a sync window,
	// an owner that reverts edits, a pause that expired ...).
	Warnings []string
	// Patch is the JSON patch sent, preconditions first.
	Patch []Op
	// ResourceVersion of the object the plan was made from.
	ResourceVersion string
	// Previous is the state a pause replaced (JSON), for the audit log.
	Previous string
	// Also are the writes to other objects the action makes, each shown
	// with its object (the ApplicationSet a pause of its child writes to).
	Also []OtherWrite

	// at is the time the plan was made for (pause records, approvals).
	at time.Time
	// actor is who it was made as (a pause records them).
	actor string
	// uid of the object it was made from.
	uid string
	// assumed are the answers about the installed schema it was made with.
	assumed     map[string]string
	gvr         schema.GroupVersionResource
	subresource string
	// verify checks the object read back after the write.
	verify func(obj map[string]any) error
	// landed judges an object read back after a write whose answer was
	// lost, for writes a controller consumes at once; nil: it holds the
	// patch (holds).
	landed      func(obj map[string]any) (landing, string)
	eventReason string
	eventVerb   string // "paused auto-sync of", "requested a sync of", ...
	// fieldManager is the patch's field manager; "" is driftdeck's own.
	fieldManager string
	// token is the reconcile request written, handed back in Result.Token.
	token string
	// before are requests to other objects (a unit's sources) written
	// ahead of the patch.
	before []sideWrite
	// hold is the owning ApplicationSet's write of a pause or resume.
	hold *ownerHold
}

// sideWrite is a JSON patch on another object than the unit, or, with a
// deleteUID, the deletion of that object bound to its uid.
type sideWrite struct {
	gvr             schema.GroupVersionResource
	namespace, name string
	patch           []Op
	deleteUID       string
	// check, when set, is asked just before the write: an error refuses it.
	check func(ctx context.Context, now time.Time) error
	// change is its line among the plan's Changes.
	change string
}

// Result is what an executed action did.
type Result struct {
	Plan *Plan
	// Actor is who the cluster says did it.
	Actor string
	// Verified is true when the object read back shows the intended change.
	Verified bool
	// Warnings found after the write (event not recorded, reverted ...).
	Warnings []string
	// ResourceVersion after the write.
	ResourceVersion string
	// Token is the value written for requests that are handled later (Pulumi
	// reconciliation requests; Flux and Terraform requestedAt, handled when
	// status.lastHandledReconcileAt shows it), so callers can wait for it.
	Token  string
	DryRun bool
	// MayRevert names the owner (ApplicationSet, parent app) that may revert
	// this spec edit; Executor.Settled checks whether it did.
	MayRevert string
	// settled: Bulk waited the settle time and read the object back.
	settled bool
}

// PlanChanged is returned by Execute when the object is no longer at the
// version the confirmed plan was made from: nothing was written.
type PlanChanged struct {
	// Plan is the new plan, from the object as it is now.
	Plan *Plan
	// Changes says in words what differs from the confirmed plan.
	Changes []string
}

func (p *PlanChanged) Error() string {
	return fmt.Sprintf("%s changed since the plan was confirmed (now at resourceVersion %s): nothing written; confirm the new plan",
		p.Plan.Request.Key.Ref(), p.Plan.ResourceVersion)
}

// UID is the uid of the object the plan was made from.
func (p *Plan) UID() string { return p.uid }
