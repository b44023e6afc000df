// Package actions executes driftdeck's writes: every action is planned from a
// fresh read of the object, shown (the plan says exactly what will be written),
// written only while the object still is at the version the plan was made
// from, as one JSON patch whose test operations are its preconditions,
// verified on the object the server returns, announced as a Kubernetes Event
// and appended to the local audit log. Every write passes writeguard: read-only
// mode refuses here, in the backend.
package actions

import (
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Kind names an action as the command line does (model.ActionKind, which
// the screens show without importing this package).
type Kind = model.ActionKind

const (
	Pause         Kind = "pause"           // Argo CD: auto-sync off; Stack: preview only
	PauseSelfHeal Kind = "pause-self-heal" // Argo CD: self-heal off, auto-sync stays
	Resume        Kind = "resume"
	Sync          Kind = "sync"
	Approve       Kind = "approve"
	Terminate     Kind = "terminate"
	Refresh       Kind = "refresh"
	HardRefresh   Kind = "hard-refresh"
	Rollback      Kind = "rollback"
	ConfirmPrune  Kind = "confirm-prune"
	Retry         Kind = "retry"
	// Unlock breaks a dead run's lock on a Stack's state (and, when chosen,
	// forgets its pending operations). It writes the state backend, not the
	// Stack: stackops plans and executes it.
	Unlock Kind = "unlock"
	// Force and Reset are a HelmRelease's one-off upgrade and failure
	// count reset (reconcile.fluxcd.io/forceAt and resetAt).
	Force Kind = "force"
	Reset Kind = "reset"
	// Replan discards a Terraform's pending plan so that a new one is made.
	Replan Kind = "replan"
	// ForceUnlock has tofu-controller break the held state lock it names.
	ForceUnlock Kind = "force-unlock"
)

// Spec describes one action kind, once, for the backend, the menus, the key
// help and the command line.
type Spec struct {
	Kind Kind
	// Destructive actions need a reason and a confirmation that defaults to No.
	Destructive bool
	// Bulkable actions may be done on many units at once (Executor.Bulk).
	Bulkable bool
	// EditsSpec actions change the object's spec, which an owner
	// (ApplicationSet, parent app) may revert.
	EditsSpec bool
	// Key is the keymap binding's name, "" if none.
	Key string
	// Help is one line for menus, ? and --help.
	Help string
	// TakesUntil: the action takes an optional expiry (a pause's).
	TakesUntil bool
	// FlagOf is the kind whose command does this one with a flag
	// (pause --self-heal-only, refresh --hard); "" when it has its own.
	FlagOf Kind
	// StateWrite: the action writes the Stack's state backend, not the
	// Stack; stackops plans and does it, under a command of its own.
	StateWrite bool
	// plans is how the action is planned on each engine's units: the
	// engines it is listed for are exactly these.
	plans map[model.Engine]planner
}

// Engines are the engines whose units know the action, in model.Engines
// order.
func (s Spec) Engines() []model.Engine {
	var out []model.Engine
	for _, e := range model.Engines {
		if s.plans[e] != nil {
			out = append(out, e)
		}
	}
	return out
}

// on sets one planner for each of the engines.
func on(p planner, engines ...model.Engine) map[model.Engine]planner {
	m := map[model.Engine]planner{}
	for _, e := range engines {
		m[e] = p
	}
	return m
}

// with joins the planners of several engines.
func with(sets ...map[model.Engine]planner) map[model.Engine]planner {
	m := map[model.Engine]planner{}
	for _, set := range sets {
		for e, p := range set {
			m[e] = p
		}
	}
	return m
}

const (
	argoCD         = model.EngineArgoCD
	stacks         = model.EnginePulumi
	kustomizations = model.EngineKustomization
	helmReleases   = model.EngineHelmRelease
	terraforms     = model.EngineTerraform
	roots          = model.EngineRoot
)

// specs is in menu order. It is filled in init: planners read the table
// (SpecOf), and a variable's initializer may not refer back to itself.
var specs []Spec

func init() {
	specs = []Spec{
		{Kind: Sync, Destructive: true, Bulkable: true, Key: "sync", Help: "sync the app to its target revision now", plans: on(planArgoSync, argoCD)},
		{Kind: Retry, Destructive: true, Bulkable: true, Key: "retry", Help: "request a new run of the Stack", plans: on(planStackRetry, stacks)},
		{Kind: Approve, Destructive: true, EditsSpec: true, Key: "approve", Help: "approve the pending change (the reviewed revision, commit or full Terraform plan id)",
			plans: with(on(planArgoSync, argoCD), on(planStackApprove, stacks), on(planTofuApprove, terraforms), on(planRootModule, roots))},
		{Kind: Refresh, Bulkable: true, Key: "refresh", Help: "Argo CD: compare the app with its source again; Flux and Terraform: reconcile now (requestedAt)",
			plans: with(on(planArgoRefresh, argoCD), on(planFluxRefresh, kustomizations, helmReleases, terraforms))},
		{Kind: HardRefresh, Bulkable: true, FlagOf: Refresh, Key: "hardrefresh", Help: "refresh, regenerating the manifests (no cache)", plans: on(planArgoRefresh, argoCD)},
		{Kind: Terminate, Destructive: true, Key: "terminate", Help: "stop a running sync, or abort a Stack's hung update",
			plans: with(on(planArgoTerminate, argoCD), on(planStackTerminate, stacks))},
		{Kind: Force, Destructive: true, Key: "force", Help: "a one-off install or upgrade of the HelmRelease now, even without changes (forceAt)", plans: on(planFluxRefresh, helmReleases)},
		{Kind: Reset, Destructive: true, Bulkable: true, Key: "reset", Help: "reset the HelmRelease's failure counts, so remediation retries again (resetAt)", plans: on(planFluxRefresh, helmReleases)},
		{Kind: Replan, Destructive: true, EditsSpec: true, Key: "replan", Help: "discard the pending Terraform plan and plan again; a root module: plan it", plans: with(on(planTofuReplan, terraforms), on(planRootModule, roots))},
		{Kind: Pause, Destructive: true, Bulkable: true, EditsSpec: true, TakesUntil: true, Key: "pause", Help: "pause automation (Argo CD: auto-sync off; Stack: preview only; Flux and Terraform: suspend), recording what it was",
			plans: with(on(planArgoPause, argoCD), on(planStackPause, stacks), on(planFluxPause, kustomizations, helmReleases, terraforms))},
		{Kind: PauseSelfHeal, Destructive: true, EditsSpec: true, TakesUntil: true, FlagOf: Pause, Help: "turn self-heal off, keeping auto-sync", plans: on(planArgoPause, argoCD)},
		{Kind: Resume, Destructive: true, Bulkable: true, EditsSpec: true, Key: "resume", Help: "restore the automation a driftdeck pause recorded",
			plans: with(on(planArgoResume, argoCD), on(planStackResume, stacks), on(planFluxResume, kustomizations, helmReleases, terraforms))},
		{Kind: Rollback, Destructive: true, Key: "rollback", Help: "sync to an earlier history entry (auto-sync must be paused)", plans: on(planArgoRollback, argoCD)},
		{Kind: ConfirmPrune, Destructive: true, Key: "confirmprune", Help: "confirm the prune a Prune=confirm sync waits for", plans: on(planArgoConfirmPrune, argoCD)},
		{Kind: Unlock, Destructive: true, StateWrite: true, Key: "unlock", Help: "break the lock a dead run left on the Stack's state", plans: on(planStateBackendWrite, stacks)},
		{Kind: ForceUnlock, Destructive: true, EditsSpec: true, Key: "forceunlock", Help: "have tofu-controller break the held Terraform state lock it names (its holder must be dead)", plans: with(on(planTofuForceUnlock, terraforms), on(planRootModule, roots))},
	}
}

// Specs lists every action kind, in menu order.
func Specs() []Spec { return append([]Spec(nil), specs...) }

// SpecOf finds a kind's description.
func SpecOf(k Kind) (Spec, bool) {
	for _, s := range specs {
		if s.Kind == k {
			return s, true
		}
	}
	return Spec{}, false
}

// Knows tells whether the engine's units know the action.
func (s Spec) Knows(e model.Engine) bool { return s.plans[e] != nil }

// KindsFor lists the actions an engine knows, in menu order.
func KindsFor(e model.Engine) []Kind {
	var out []Kind
	for _, s := range specs {
		if s.Knows(e) {
			out = append(out, s.Kind)
		}
	}
	return out
}

// ParseKind accepts the command line's action names.
func ParseKind(s string) (Kind, error) {
	if sp, ok := SpecOf(Kind(s)); ok {
		return sp.Kind, nil
	}
	return "", fmt.Errorf("unknown action %q", s)
}

// Destructive actions need a reason and a confirmation that defaults to No.
// An unknown kind counts as destructive.
func Destructive(k Kind) bool {
	s, ok := SpecOf(k)
	return !ok || s.Destructive
}

// Request is one action on one unit.
type Request struct {
	Kind   Kind
	Key    model.Key
	Reason string
	// Until is when a pause expires (zero: no expiry). Expired pauses are
	// shown as such; nothing resumes on its own.
	Until time.Time
	// Prune lets a sync or rollback delete resources no longer in the source.
	Prune bool
	// Resources limits a sync to these resources (group/kind/namespace/name).
	Resources []Resource
	SyncChoices
	// Revision binds a sync or approval to the revision the user reviewed:
	// the write is refused when the app now compares against another one.
	// For a Terraform it is the plan id reviewed, which must be the full
	// pending id (a prefix is refused, never written).
	Revision string
	// WithSource has a Flux or Terraform refresh request the unit's source
	// (GitRepository, OCIRepository, HelmChart ...) first.
	WithSource bool
	// LockID binds a force-unlock to the state lock the user saw.
	LockID string
	// HistoryID picks the Argo CD history entry to roll back to.
	HistoryID int64
	// Annotate sets annotations in the same patch as the action, each only
	// while the object still holds its Was: a policy's attempt count.
	Annotate map[string]AnnotationUpdate

	// Single marks a resume of one unit asked for by name: it also ends a
	// suspend set outside driftdeck (flux suspend), as flux resume does. A
	// thaw of many leaves those as it found them.
	Single bool
	// AutoSync is the policy a resume writes to an Argo CD Application whose
	// automation was turned off outside driftdeck (no pause record): the
	// user's choice, never a guess. Nil: such a resume is refused.
	AutoSync *AutoSyncPolicy
	// Approval names the change request a stored plan applies, who asked
	// and who approved (the Event and the audit line say it).
	Approval string

	// preHeld is the ApplicationSet entry a bulk pause wrote for the unit
	// with its siblings' before pausing any (bulk_hold.go).
	preHeld *holdRecord
}

// AutoSyncPolicy is spec.syncPolicy.automated as a resume enables it.
type AutoSyncPolicy struct {
	SelfHeal, Prune bool
}

// SyncChoices are the options of an Argo CD sync beyond prune, as the sync
// dialog and the sync command's flags offer them.
type SyncChoices struct {
	// Force has the sync replace what it cannot patch
	// (syncStrategy.hook.force: delete and re-create).
	Force bool
	// SyncDryRun has the Argo CD controller run the sync as a dry run
	// (operation.sync.dryRun): the operation is written, nothing applied.
	// Unlike the executor's DryRun, which writes nothing at all.
	SyncDryRun bool
	// ApplyOutOfSyncOnly has the sync apply only the resources out of sync
	// (syncOptions ApplyOutOfSyncOnly=true added to the app's own).
	ApplyOutOfSyncOnly bool
}

// Resource names one managed resource of an Argo CD Application.
type Resource struct {
	Group, Kind, Namespace, Name string
}

// ErrReadOnly is the one error of every write in read-only mode, Kubernetes
// patch or state-backend write alike.
var ErrReadOnly = writeguard.ErrReadOnly

// Refusal is an action the backend will not do, with the reason. stackops
// refuses with the same type.
type Refusal = writeguard.Refusal

func refusef(format string, args ...any) error { return writeguard.Refusef(format, args...) }

func nothingToDo(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...), NothingToDo: true}
}

// satisfied is a nothingToDo where what was asked is already the case.
func satisfied(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...), NothingToDo: true, Satisfied: true}
}
