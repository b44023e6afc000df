package model

import "time"

// Unit is one reconciler, as every view shows it. A Unit is immutable once it
// has been handed to the store: a change produces a new Unit.
type Unit struct {
	Key        Key
	Kind       string // the engine's native kind, e.g. "Application"
	APIVersion string
	UID        string
	// ResourceVersion of the object this unit was read from.
	ResourceVersion string
	Generation      int64
	Created         time.Time

	// Desired is the revision the source asks for; Applied the one last applied.
	Desired string
	Applied string

	Sync       SyncState
	SyncNative string // the engine's own word, e.g. "OutOfSync"

	Health       Health
	HealthNative string

	Automation       Automation
	AutomationNative string // e.g. "automated prune selfHeal"

	// Observed is the run state read from the object; Run adds what time tells
	// (a run past its threshold is Stuck). Derive computes Run from Observed.
	Observed  RunState
	Run       RunState
	RunSince  time.Time // when the current run state began, zero when unknown
	RunReason string    // one line: why the unit is in this run state
	// StuckRule names the rule that classified the unit as stuck or blocked,
	// in words a user can check.
	StuckRule string
	// Queued marks a run that was requested but not picked up yet.
	Queued bool
	// Window describes a sync window that blocks syncing now, empty when none.
	Window string
	// WindowAllowsManual: the blocking window still lets a person sync by hand.
	WindowAllowsManual bool

	// Pause is driftdeck's record of a pause it made, read from the object.
	Pause *PauseRecord

	// Owner names whatever will revert spec edits, e.g. "ApplicationSet/team-a".
	Owner   string
	Project string

	// LastChange is the time of the last status change the object shows.
	LastChange time.Time

	// ReadErrors lists the fields that could not be read (missing or wrong type).
	ReadErrors []string

	Argo   *ArgoFacts
	Stack  *StackFacts
	Flux   *FluxFacts
	Tofu   *TofuFacts
	Labels map[string]string
}

// PauseRecord is the pause driftdeck wrote on an object: who, why, when, until
// when, and the exact previous state it replaced.
type PauseRecord struct {
	By       string
	Reason   string
	At       time.Time
	Until    time.Time // zero: no expiry
	Previous string    // JSON of the state before the pause
	Mode     string    // "auto-sync", "self-heal" or "suspend"
}

// Expired reports whether the pause has an expiry that lies in the past.
func (p *PauseRecord) Expired(now time.Time) bool {
	return p != nil && !p.Until.IsZero() && now.After(p.Until)
}

// ArgoFacts are the Application fields actions and the detail view depend on.
type ArgoFacts struct {
	AutoSync       bool // syncPolicy.automated present and not disabled
	AutomatedSet   bool // syncPolicy.automated present at all
	EnabledField   *bool
	SelfHeal       bool
	Prune          bool
	OperationSet   bool   // top-level operation present
	Phase          string // status.operationState.phase
	PhaseMessage   string
	StartedAt      time.Time
	FinishedAt     time.Time
	RetryCount     int64
	HistoryIDs     []int64
	MultiSource    bool
	RepoURL        string
	Path           string
	TargetRevision string
	DestServer     string
	DestNamespace  string
	DestName       string
	PruneRequired  bool // a resource waits for Prune=confirm approval
	ReconciledAt   time.Time
	Conditions     []Condition
	Resources      ResourceCounts
	RefreshPending string // value of the refresh annotation while set
}

// StackFacts are the Pulumi Stack fields actions and the detail view depend on.
type StackFacts struct {
	StackName        string
	Branch           string
	Commit           string // spec.commit when pinned
	PendingCommit    string // a newer commit waiting for approval
	Preview          bool   // spec.preview
	ProjectRepo      string
	RepoDir          string
	Backend          string
	ObservedRequest  string
	LastRequest      string // status.lastUpdate.reconcileRequest
	RequestedRequest string // the annotation's value
	LastState        string
	LastUpdateName   string
	LastFailures     int64
	LastMessage      string
	CurrentUpdate    string
	Conditions       []Condition
	OperatorV2       bool
}

// FluxFacts are the Flux Kustomization/HelmRelease fields driftdeck uses.
type FluxFacts struct {
	Suspended       bool
	SuspendSet      bool
	RequestedAt     string
	LastHandledAt   string
	SourceRef       string
	Conditions      []Condition
	LastAttempted   string
	ObservedGen     int64
	ReconcilingFrom time.Time
}

// TofuFacts are the tofu-controller Terraform fields driftdeck uses.
type TofuFacts struct {
	FluxFacts
	ApprovePlan         string
	PendingPlan         string
	LastPlannedGen      int64
	LockPending         string
	StoreReadablePlan   string
	LastAppliedRevision string
}

// Condition is a Kubernetes-style status condition.
type Condition struct {
	Type    string
	Status  string
	Reason  string
	Message string
	Since   time.Time
}

// Reason is the one line that explains the unit's state: why it runs, is
// stuck or blocked, what a window forbids, what could not be read, or who
// paused it.
func (u *Unit) Reason() string {
	switch {
	case u.RunReason != "":
		return u.RunReason
	case u.Run == Stuck && u.StuckRule != "":
		return u.StuckRule
	case u.Window != "":
		return u.Window
	case len(u.ReadErrors) > 0:
		return "unreadable: " + u.ReadErrors[0]
	case u.Pause != nil:
		return "paused by " + u.Pause.By + ": " + u.Pause.Reason
	}
	return ""
}

// ResourceCounts counts an Application's resources by sync status.
type ResourceCounts struct {
	Synced, OutOfSync, Other int
}
