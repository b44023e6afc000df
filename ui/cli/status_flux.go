package cli

import "github.com/driftdeck/driftdeck/backend/model"

// reconcileJSON is a Flux or Terraform unit's reconcile request: the
// requestedAt token written, the one the controller last handled (handled
// is not applied: compare appliedRevision).
type reconcileJSON struct {
	RequestedAt   string `json:"requestedAt,omitempty"`
	LastHandledAt string `json:"lastHandledAt,omitempty"`
	Handled       bool   `json:"handled"`
}

// terraformJSON is what a script needs of a Terraform's plan and lock: the
// FULL pending plan id an approval must name, whether it is stale (planned
// from an older spec), and the id of the state lock that blocks it.
type terraformJSON struct {
	PendingPlan            string `json:"pendingPlan,omitempty"`
	PlanStale              bool   `json:"planStale"`
	LastPlannedGeneration  int64  `json:"lastPlannedGeneration,omitempty"`
	LastAppliedPlan        string `json:"lastAppliedPlan,omitempty"`
	ApprovePlan            string `json:"approvePlan,omitempty"`
	PlanOnly               bool   `json:"planOnly,omitempty"`
	DriftFound             bool   `json:"driftFound,omitempty"`
	LockID                 string `json:"lockId,omitempty"`
	ReconciliationFailures int64  `json:"reconciliationFailures,omitempty"`
	Retries                int64  `json:"retries,omitempty"`
}

// helmReleaseJSON is a HelmRelease's remediation state: its failure counts
// against the retries its spec allows (-1: forever), and whether they are
// exhausted (nothing happens until the spec changes or a reset).
type helmReleaseJSON struct {
	Failures         int64  `json:"failures"`
	InstallFailures  int64  `json:"installFailures"`
	UpgradeFailures  int64  `json:"upgradeFailures"`
	InstallRetries   int64  `json:"installRetries"`
	UpgradeRetries   int64  `json:"upgradeRetries"`
	LastAction       string `json:"lastAction,omitempty"`
	RetriesExhausted bool   `json:"retriesExhausted"`
}

// addFluxRecords fills the Flux and Terraform parts of a unit's record.
func addFluxRecords(r *unitRecord, u *model.Unit) {
	f := u.FluxRuntime()
	if f == nil {
		return
	}
	if f.RequestedAt != "" || f.LastHandledAt != "" {
		r.Reconcile = &reconcileJSON{RequestedAt: f.RequestedAt, LastHandledAt: f.LastHandledAt, Handled: f.RequestedAt != "" && f.RequestedAt == f.LastHandledAt}
	}
	if h := f.Helm; h != nil {
		r.HelmRelease = &helmReleaseJSON{Failures: h.Failures, InstallFailures: h.InstallFailures, UpgradeFailures: h.UpgradeFailures,
			InstallRetries: h.InstallRetries, UpgradeRetries: h.UpgradeRetries, LastAction: h.LastAction, RetriesExhausted: h.RetriesExhausted}
	}
	if t := u.Tofu; t != nil {
		r.Terraform = &terraformJSON{PendingPlan: t.PendingPlan, PlanStale: t.PlanStale, LastPlannedGeneration: t.LastPlannedGen,
			LastAppliedPlan: t.LastAppliedPlan, ApprovePlan: t.ApprovePlan, PlanOnly: t.PlanOnly, DriftFound: t.DriftFound,
			LockID: t.LockPending, ReconciliationFailures: t.ReconciliationFailures, Retries: t.Retries}
	}
}
