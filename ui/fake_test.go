package ui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// fakeBackend answers the UI's questions from fixed data, for model-level
// tests of the screens; the real backend is tested against real clusters.
// Its fields let a test shape the answers and read what was asked.
type fakeBackend struct {
	mu        sync.Mutex
	reqs      fakeRequests
	executed  []actions.Request // every write's request
	sent      []*actions.Plan   // the plans Send wrote
	plans     int               // Plan calls
	describes int               // Describe calls
	// describeFailures: that many Describe calls fail before one answers.
	describeFailures int
	available        int // Available calls
	// version is the resourceVersion plans are made from; a test moves it
	// to play a change on the cluster.
	version string
	// whyNot makes a kind impossible for every unit; askable lets the user
	// ask for it in a change request then.
	whyNot  map[actions.Kind]string
	askable bool
	// unsure, when set, is every check's failure: nothing is known.
	unsure string
	// planRefusal, when set, is every plan's answer: the backend refuses.
	planRefusal error
	// preview, when set, plays a preview; else previews fail.
	preview    func(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error)
	driftCheck func(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.DriftReport, error)
	approve    func(ctx context.Context, rv *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, *stackops.Done, error)
	// unstick: the pending operations the Stack's state holds.
	pending      []pulumistate.PendingOperation
	unstickCalls []bool // clearPending of each PlanUnstick
	applied      []*stackops.Unstick
	dryRun       bool // state writes answer as in --dry-run
	bulks        []actions.BulkRequest
	nothingToDo  map[string]bool // units (by name) already as a bulk action asks
	// mayRevert names the owner a write's result says may revert it;
	// reverted is what Settled then finds.
	mayRevert string
	reverted  []string
	settled   []*actions.Result
	// also are the writes to other objects plans make.
	also []actions.OtherWrite
	// sourceFirst is the change a refresh with source plans before the
	// unit's own, as the backend lists the source's request first.
	sourceFirst string
	// ownerWrites is what OwnerWrites answers.
	ownerWrites []actions.OwnerWrite
	// diff and tree answer Diff and ResourceTree when set.
	diff      *argodiff.Result
	diffKeys  []model.Key // what Diff was asked for
	tree      *restree.Tree
	treeReads int
	// rootPlans counts PlanRoot calls; rootWrites are the applies and
	// unlocks asked, as "apply <key> <id> <reason>".
	rootPlans  int
	rootWrites []string
}

// Available answers Flux and Terraform units with the backend's own rules,
// Argo CD and Pulumi ones with a few of them; whyNot overrides both.
func (f *fakeBackend) Available(ctx context.Context, u *model.Unit) []model.Availability {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.available++
	if f.unsure != "" {
		var out []model.Availability
		for _, s := range specs() {
			if s.Knows(u.Key.Engine) {
				out = append(out, model.Availability{Kind: s.Kind, WhyNot: f.unsure, Unsure: true})
			}
		}
		return out
	}
	if answersLikeTheBackend(u.Key.Engine) {
		out := fluxAvailability(ctx, u)
		for i, a := range out {
			if why := f.whyNot[a.Kind]; why != "" {
				out[i].Enabled, out[i].WhyNot = false, why
			}
		}
		return out
	}
	out := []model.Availability{} // the backend's answer is never nil
	for _, s := range specs() {
		if !s.Knows(u.Key.Engine) {
			continue
		}
		a := model.Availability{Kind: s.Kind, Enabled: true}
		switch {
		case f.whyNot[s.Kind] != "":
			a.Enabled, a.WhyNot, a.Requestable = false, f.whyNot[s.Kind], f.askable
		case s.Kind == actions.Terminate:
			a.Enabled, a.WhyNot = false, "no running operation"
		case s.Kind == actions.Pause && u.Automation == model.Manual:
			a.Enabled, a.WhyNot = false, "manual sync policy: there is no automation to pause"
		}
		out = append(out, a)
	}
	return out
}

func (f *fakeBackend) Plan(_ context.Context, req actions.Request) (*actions.Plan, error) {
	f.mu.Lock()
	f.plans++
	refusal := f.planRefusal
	f.mu.Unlock()
	if refusal != nil {
		return nil, refusal
	}
	return f.planAt(req), nil
}

// planAt plans at the object's present version.
func (f *fakeBackend) planAt(req actions.Request) *actions.Plan {
	f.mu.Lock()
	version := f.version
	f.mu.Unlock()
	return f.planAtVersion(req, version)
}

// planAtVersion plans as the object was at version ("" is 4711, the
// first): from 4712 on its previous automated state is prune false.
func (f *fakeBackend) planAtVersion(req actions.Request, version string) *actions.Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	if version == "" {
		version = "4711"
	}
	p := &actions.Plan{
		Request: req,
		Summary: fmt.Sprintf("pause auto-sync and self-heal of %s", req.Key.Ref()),
		Changes: []string{
			"spec.syncPolicy.automated.enabled: (unset, means true) → false",
			"metadata.annotations.driftdeck.io/paused-by: oncall@example.com",
			`metadata.annotations.driftdeck.io/paused-previous: {"prune":true,"selfHeal":true}`,
			"metadata.annotations.driftdeck.io/paused-reason: " + req.Reason,
		},
		Warnings:        []string{"ApplicationSet/storefront manages this object and may revert spec edits; driftdeck re-reads after the write and reports a revert"},
		Patch:           make([]actions.Op, 8),
		ResourceVersion: version,
		Also:            f.also,
	}
	if version != "4711" {
		p.Changes[2] = `metadata.annotations.driftdeck.io/paused-previous: {"prune":false,"selfHeal":true}`
	}
	if req.WithSource {
		p.Summary = "reconcile " + req.Key.Ref() + " now, its source first"
		p.Changes = []string{f.sourceFirst, req.Key.Ref() + ": metadata.annotations.reconcile.fluxcd.io/requestedAt: (unset) → T1"}
	}
	return p
}

// Send writes the plan only while the object is at the version it was
// planned from, as the backend does.
func (f *fakeBackend) Send(_ context.Context, p *actions.Plan) (*actions.Result, error) {
	if now := f.planAt(p.Request); p.ResourceVersion != now.ResourceVersion {
		// What changed is said by the backend's own comparison.
		return nil, &actions.PlanChanged{Plan: now, Changes: actions.PlanDifferences(p, now)}
	}
	f.mu.Lock()
	f.executed = append(f.executed, p.Request)
	f.sent = append(f.sent, p)
	f.mu.Unlock()
	return &actions.Result{Plan: p, Actor: "oncall@example.com", Verified: true, MayRevert: f.mayRevert}, nil
}

// Execute plans and writes at once.
func (f *fakeBackend) Execute(_ context.Context, req actions.Request) (*actions.Result, error) {
	now := f.planAt(req)
	f.mu.Lock()
	f.executed = append(f.executed, req)
	f.mu.Unlock()
	return &actions.Result{Plan: now, Actor: "oncall@example.com", Verified: true, MayRevert: f.mayRevert}, nil
}

func (f *fakeBackend) OwnerWrites(context.Context, actions.BulkRequest) []actions.OwnerWrite {
	return f.ownerWrites
}

// Bulk skips units whose engine does not know the kind and those with
// nothing to do, and applies the rest.
func (f *fakeBackend) Bulk(_ context.Context, r actions.BulkRequest) []actions.BulkOutcome {
	f.mu.Lock()
	f.bulks = append(f.bulks, r)
	f.mu.Unlock()
	spec, _ := actions.SpecOf(r.Kind)
	var out []actions.BulkOutcome
	for _, k := range r.Keys {
		o := actions.BulkOutcome{Key: k, Outcome: actions.OutcomeApplied, Result: &actions.Result{Verified: true}}
		switch {
		case !spec.Knows(k.Engine):
			o = actions.BulkOutcome{Key: k, Outcome: actions.OutcomeSkipped, Why: string(r.Kind) + " is not possible for " + string(k.Engine) + " units"}
		case f.nothingToDo[k.Name]:
			o = actions.BulkOutcome{Key: k, Outcome: actions.OutcomeSkipped, Why: "nothing to do: already as asked"}
		}
		out = append(out, o)
	}
	return out
}

func (f *fakeBackend) Settled(_ context.Context, res *actions.Result) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settled = append(f.settled, res)
	return f.reverted
}

func (f *fakeBackend) Describe(_ context.Context, k model.Key) (*describe.Detail, error) {
	f.mu.Lock()
	f.describes++
	failing := f.describes <= f.describeFailures
	f.mu.Unlock()
	if failing {
		return nil, fmt.Errorf("reading %s: the server was unable to return a response in the time allotted", k.Ref())
	}
	return &describe.Detail{
		Key:  k,
		YAML: "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + k.Name + "\n",
		Events: []describe.Event{
			{Type: "Normal", Reason: "OperationStarted", Message: "Initiated automated sync to 'a1b2c3d'", Source: "argocd-application-controller", Count: 1, Last: fixedNow.Add(-26 * time.Minute)},
		},
		History: []describe.HistoryEntry{
			{ID: 12, Revision: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", DeployedAt: fixedNow.Add(-26 * time.Hour), InitiatedBy: "automated"},
			{ID: 11, Revision: "0f1e2d3c4b5a69788796a5b4c3d2e1f000112233", DeployedAt: fixedNow.Add(-50 * time.Hour), InitiatedBy: "alice@example.com"},
		},
		Resources: []describe.Resource{
			{Group: "apps", Kind: "Deployment", Namespace: "search", Name: "indexer", Status: "OutOfSync", Health: "Progressing"},
			{Kind: "Service", Namespace: "search", Name: "indexer", Status: "Synced", Health: "Healthy"},
		},
	}, nil
}

func (f *fakeBackend) Diff(ctx context.Context, k model.Key) (*argodiff.Result, error) {
	if ctx == nil {
		// The real backend's render and API calls need one (a nil one
		// panics in the helper call): a screen must give its own.
		return nil, fmt.Errorf("diff of %s asked without a context", k.Ref())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diffKeys = append(f.diffKeys, k)
	if f.diff != nil {
		return f.diff, nil
	}
	return nil, fmt.Errorf("no diff source in this test")
}

func (f *fakeBackend) ResourceTree(_ context.Context, k model.Key) (*restree.Tree, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.treeReads++
	if f.tree == nil {
		return nil, fmt.Errorf("no resource tree in this test")
	}
	return f.tree, nil
}

func (f *fakeBackend) Preview(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error) {
	if f.preview != nil {
		return f.preview(ctx, k, onEvent)
	}
	return nil, fmt.Errorf("no pulumi in this test")
}

func (f *fakeBackend) DriftCheck(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.DriftReport, error) {
	if f.driftCheck != nil {
		return f.driftCheck(ctx, k, onEvent)
	}
	return nil, fmt.Errorf("no pulumi in this test")
}

func (f *fakeBackend) Approve(ctx context.Context, rv *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, *stackops.Done, error) {
	if f.approve != nil {
		return f.approve(ctx, rv, reason, onEvent)
	}
	return pulumirun.Result{}, nil, fmt.Errorf("no pulumi in this test")
}

// PlanUnstick plans breaking a lock held by a dead process, and forgetting
// the pending operations when asked.
func (f *fakeBackend) PlanUnstick(_ context.Context, k model.Key, clearPending, _ bool) (*stackops.Unstick, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unstickCalls = append(f.unstickCalls, clearPending)
	return &stackops.Unstick{
		Loc: &stackops.Location{Key: k, Stack: "acme/" + k.Name + "/prod", Backend: "file:///state"},
		Info: &pulumistate.StackInfo{Pending: f.pending, Locks: []pulumistate.Lock{
			{PID: 4242, User: "runner", Host: "ws-1", Since: fixedNow.Add(-time.Hour), Holder: pulumistate.HolderDead},
		}},
		Repairs:      []*pulumistate.Repair{{Summary: "break the lock of acme/" + k.Name + "/prod held by pid 4242"}},
		ClearPending: clearPending && len(f.pending) > 0,
	}, nil
}

func (f *fakeBackend) Apply(_ context.Context, u *stackops.Unstick, _ string) (*stackops.Done, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, u)
	return &stackops.Done{DryRun: f.dryRun, Did: u.Changes()}, nil
}

// reviewedPlan is a finished preview of a Stack mapped to a local program,
// with its plan saved.
func reviewedPlan(k model.Key) *stackops.Reviewed {
	return &stackops.Reviewed{
		Loc:      &stackops.Location{Key: k, Stack: "dev", Backend: "file:///state", Local: &config.StackProgram{}},
		PlanPath: "/tmp/plan.json",
		Result:   pulumirun.Result{Elapsed: 1200 * time.Millisecond},
	}
}

func (f *fakeBackend) PlanRoot(_ context.Context, k model.Key) (*rootmod.Saved, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rootPlans++
	return &rootmod.Saved{RootPlan: model.RootPlan{ID: "plan-" + k.Name}}, nil
}

func (f *fakeBackend) ApplyRoot(_ context.Context, k model.Key, id, reason string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rootWrites = append(f.rootWrites, "apply "+k.Ref()+" "+id+" "+reason)
	return "", nil
}

func (f *fakeBackend) UnlockRoot(_ context.Context, k model.Key, id, reason string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rootWrites = append(f.rootWrites, "unlock "+k.Ref()+" "+id+" "+reason)
	return "", nil
}
