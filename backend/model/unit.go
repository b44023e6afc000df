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
	// Persisting says in words what a running or failed unit has kept doing
	// since RunSince, for engines that retry on their own and never call it
	// stuck themselves ("failing on revision main@sha1:1a2b3c", "waiting for
	// a dependency"): Derive calls it stuck once it lasts longer than the
	// running threshold, and the rule names it.
	Persisting string
	// Window describes a sync window that blocks syncing now, empty when none.
	Window string
	// WindowAllowsManual: the blocking window still lets a person sync by hand.
	WindowAllowsManual bool

	// Pause is driftdeck's record of a pause it made, read from the object.
	Pause *PauseRecord
	// Request is the open change request for this unit, if any (the newest).
	Request *RequestMark
	// Drift is the verdict of the Stack's last drift check, nil when none
	// holds for what it has applied now.
	Drift *DriftMark

	// Owner names whatever will revert spec edits, e.g. "ApplicationSet/team-a".
	Owner   string
	Project string

	// Parents are the units this one's object names as above it, in the
	// order the tree uses (the first is where it is shown): the owning
	// ApplicationSet, the prerequisite Stacks, the Flux objects of its
	// dependsOn.
	Parents []Key
	// Children are the units this one's object says it manages: the
	// Applications an app-of-apps lists in status.resources.
	Children []Key

	// LastChange is the time of the last status change the object shows.
	LastChange time.Time

	// ReadErrors lists the fields that could not be read (missing or wrong type).
	ReadErrors []string

	// SourceState is how the source a Flux unit reads is doing, when the
	// source objects are watched; nil otherwise.
	SourceState *SourceState

	Argo   *ArgoFacts
	AppSet *AppSetFacts
	Stack  *StackFacts
	Flux   *FluxFacts
	Tofu   *TofuFacts
	Root   *RootFacts
	Labels Labels
	// Remediations is the AnnotationRemediationAttempts annotation as read
	// (the policy package reads it).
	Remediations string
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
	// OutsideControlPlane: the Application lives in another namespace than
	// Argo CD's (status.controllerNamespace), and Argo CD's RBAC names it
	// <project>/<namespace>/<name>.
	OutsideControlPlane bool
	// Step is where a running sync is, nil when none runs.
	Step *SyncStep
}

// AppSetFacts are the ApplicationSet fields the tree and the detail view show.
type AppSetFacts struct {
	Generators int
	// ApplicationsSync is syncPolicy.applicationsSync (create-only,
	// create-update, create-delete, sync), "" when unset (sync).
	ApplicationsSync   string
	PreserveOnDeletion bool // syncPolicy.preserveResourcesOnDeletion
	IgnoreDifferences  int  // entries of spec.ignoreApplicationDifferences
	Conditions         []Condition
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
	// SecretRefs are the Secret keys the Stack's runs read (doctor checks
	// that they exist); Literals the fields that hold a secret in the spec
	// itself, readable by whoever may read the Stack.
	SecretRefs []SecretRef
	Literals   []string
	// DestroyOnFinalize: deleting the Stack destroys what it manages
	// (spec.destroyOnFinalize).
	DestroyOnFinalize bool
}

// SecretRef is one Secret a Stack names, and the key it reads.
type SecretRef struct {
	// Field is where the Stack names it: envRefs.PULUMI_CONFIG_PASSPHRASE,
	// secretsRef.dbPassword, accessTokenSecret, envSecrets[0].
	Field           string
	Namespace, Name string
	Key             string // "" when the whole Secret is read (envSecrets)
}

// FluxFacts are the fields of a Flux Kustomization or HelmRelease (and the
// Flux runtime fields of a tofu-controller Terraform) that driftdeck uses.
type FluxFacts struct {
	Suspended  bool // spec.suspend
	SuspendSet bool // spec.suspend present at all
	// RequestedAt is the reconcile.fluxcd.io/requestedAt annotation; the
	// request is handled when LastHandledAt (status.lastHandledReconcileAt)
	// equals it. Handled is not applied: compare LastApplied.
	RequestedAt   string
	LastHandledAt string
	// Source is what the object reads, e.g. GitRepository/flux-system/infra
	// (for a HelmRelease: the HelmRepository, or the chartRef's OCIRepository
	// or HelmChart).
	Source Ref
	// DependsOn names the objects of the same kind that must be Ready first,
	// as namespace/name.
	DependsOn  []string
	Conditions []Condition
	// LastAttempted and LastApplied are status.lastAttemptedRevision and the
	// revision last applied (status.lastAppliedRevision; for a HelmRelease,
	// the chart version of the deployed release in history).
	LastAttempted string
	LastApplied   string
	ObservedGen   int64
	Interval      string
	// Helm holds what only a HelmRelease has.
	Helm *HelmFacts
}

// SourceState is the readiness of a source-controller object (GitRepository,
// OCIRepository, HelmRepository, HelmChart, Bucket) as its own status says.
type SourceState struct {
	Ref       Ref
	Missing   bool   // the source kind was listed and this object is not there
	Suspended bool   // spec.suspend
	Ready     string // the Ready condition's status: True, False, Unknown or "" (none yet)
	Reason    string
	Message   string
	Since     time.Time
	Revision  string // status.artifact.revision
}

// Ref names a Kubernetes object by kind, namespace and name.
type Ref struct {
	Kind, Namespace, Name string
}

func (r Ref) String() string {
	if r.Kind == "" && r.Name == "" {
		return ""
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// HelmFacts are the HelmRelease fields for history and remediation.
type HelmFacts struct {
	ReleaseName string
	Chart       string // spec.chart.spec.chart, or the chartRef's name
	// History is status.history, newest first.
	History []HelmRelease
	// Failures counts every failure since the last success; InstallFailures
	// and UpgradeFailures the failed install/upgrade attempts, against the
	// retries the spec allows (-1: retry forever).
	Failures, InstallFailures, UpgradeFailures int64
	InstallRetries, UpgradeRetries             int64
	LastAction                                 string // status.lastAttemptedReleaseAction: install or upgrade
	// RetriesExhausted: Stalled with reason RetriesExceeded; the controller
	// does nothing until the spec changes or a reset or force is requested.
	RetriesExhausted bool
	// ForceAt/ResetAt are the reconcile.fluxcd.io/forceAt and resetAt
	// annotations, handled when they equal LastHandledForceAt/ResetAt.
	ForceAt, ResetAt                     string
	LastHandledForceAt, LastHandledReset string
	DriftDetection                       string // spec.driftDetection.mode: enabled, warn or disabled
}

// HelmRelease is one entry of a HelmRelease's history (a Helm release version).
type HelmRelease struct {
	Version      int64
	Status       string // deployed, failed, superseded, ...
	ChartName    string
	ChartVersion string
	AppVersion   string
	Deployed     time.Time
}

// TofuFacts are the tofu-controller Terraform fields driftdeck uses.
type TofuFacts struct {
	FluxFacts
	// ApprovePlan is spec.approvePlan: "auto" applies every plan, "" waits
	// for approval, "disable" only detects drift, any other value approves
	// the pending plan it names (upstream also accepts a prefix of it; a
	// prefix also approves later plans, so driftdeck writes only full ids).
	ApprovePlan string
	PlanOnly    bool // spec.planOnly: plans are never applied
	Force       bool // spec.force: every plan is applied
	// DriftDetection is on unless spec.disableDriftDetection.
	DriftDetection bool
	// PendingPlan is the FULL id in status.plan.pending, e.g. plan-main-1a2b3c4d5e.
	PendingPlan     string
	LastAppliedPlan string
	DestroyPlan     bool // status.plan.isDestroyPlan
	DriftPlan       bool // status.plan.isDriftDetectionPlan
	// PlanStale: status.lastPlannedGeneration differs from metadata.generation,
	// so the pending plan was made from an older spec.
	PlanStale           bool
	LastPlannedGen      int64
	LastPlannedRevision string
	LastPlanAt          time.Time
	// DriftFound: Ready is False with reason DriftDetected.
	DriftFound  bool
	LastDriftAt time.Time
	// LockPending is status.lock.pending: the id of the state lock that
	// blocks the run, the one a force-unlock must name.
	LockPending            string
	ForceUnlock            string // spec.tfstate.forceUnlock: auto, yes or no
	LockIdentifier         string // spec.tfstate.lockIdentifier
	ReconciliationFailures int64
	Retries                int64 // spec.remediation.retries, 0 when unset
	Workspace              string
	StoreReadablePlan      string // spec.storeReadablePlan: none, json or human
	// Outputs are the names of the module's outputs (status.availableOutputs);
	// their values are in OutputsSecret (spec.writeOutputsToSecret.name),
	// which driftdeck never reads: an output may be sensitive.
	Outputs       []string
	OutputsSecret string
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

// RootFacts are what driftdeck read of a root module's workspace: its state
// and lock from the backend, and its last plan.
type RootFacts struct {
	Dir string
	// Given says where the module was named: "flag" (--root), "config" or
	// "demo"; a printed command names it again the same way.
	Given   string
	Backend string // the backend type: local, kubernetes, s3...
	// Serial and Lineage identify the state snapshot; Serial 0 with no
	// lineage is a workspace never applied.
	Serial      int64
	Lineage     string
	TofuVersion string // the version that wrote the state
	// AppliedAt is when the state was last written, zero when the backend
	// does not say.
	AppliedAt time.Time
	Resources []string // managed resource instances, by address
	Outputs   []RootOutput
	// Lock is the state lock as the backend keeps it, nil when none is
	// held; LockUnread says why it could not be read ("" when it was).
	Lock       *RootLock
	LockUnread string
	// Plan is the last plan driftdeck saved, nil when none.
	Plan *RootPlan
	// ReadError says why the state could not be read.
	ReadError string
}

// RootOutput is one output of a root module's state; a sensitive one's
// value is never kept.
type RootOutput struct {
	Name      string
	Sensitive bool
	Value     string // JSON, "" when sensitive
}

// RootLock is a state lock's info, as tofu writes it.
type RootLock struct {
	ID        string
	Operation string
	Who       string
	Version   string
	Created   time.Time
	Path      string
	Info      string
	// Gone: the holder is known to have ended without unlocking (its
	// process no longer holds the file lock); GoneWhy says how that is
	// known.
	Gone    bool
	GoneWhy string
}

// RootPlan is a saved plan of a root module.
type RootPlan struct {
	// ID is the plan file's digest: an apply names the plan it applies.
	ID      string
	At      time.Time
	By      string
	Serial  int64 // the state serial the plan was made against
	Lineage string
	Changes bool
	Summary string // tofu's line: "Plan: 1 to add, 0 to change, 0 to destroy."
	Applied bool   // applied by driftdeck
}
