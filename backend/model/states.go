package model

// SyncState says whether the live state matches what the source wants.
type SyncState uint8

const (
	SyncUnknown SyncState = iota
	InSync
	Drifted
)

func (s SyncState) String() string {
	switch s {
	case InSync:
		return "in sync"
	case Drifted:
		return "drifted"
	}
	return "unknown"
}

// Health is the engine's health verdict, mapped onto one scale.
type Health uint8

const (
	HealthUnknown Health = iota
	Healthy
	Progressing
	Degraded
	HealthSuspended
	Missing
)

func (h Health) String() string {
	switch h {
	case Healthy:
		return "healthy"
	case Progressing:
		return "progressing"
	case Degraded:
		return "degraded"
	case HealthSuspended:
		return "suspended"
	case Missing:
		return "missing"
	}
	return "unknown"
}

// Automation says what the reconciler does on its own.
type Automation uint8

const (
	// Manual: changes are applied only when somebody asks.
	Manual Automation = iota
	// Auto: changes in the source are applied automatically.
	Auto
	// SelfHeal: automatic, and live drift is reverted too.
	SelfHeal
	// Paused: automation was switched off by a driftdeck pause.
	Paused
	// Suspended: reconciliation is switched off (Flux/tofu spec.suspend, or an
	// Argo CD policy disabled by somebody other than driftdeck).
	Suspended
)

func (a Automation) String() string {
	switch a {
	case Auto:
		return "auto"
	case SelfHeal:
		return "self-heal"
	case Paused:
		return "paused"
	case Suspended:
		return "suspended"
	}
	return "manual"
}

// RunState is what the reconciler is doing now, derived from its status.
type RunState uint8

const (
	Idle RunState = iota
	Running
	Stuck
	Failed
	AwaitingApproval
	BlockedByWindow
)

func (r RunState) String() string {
	switch r {
	case Running:
		return "running"
	case Stuck:
		return "stuck"
	case Failed:
		return "failed"
	case AwaitingApproval:
		return "awaiting approval"
	case BlockedByWindow:
		return "blocked by window"
	}
	return "idle"
}

// ParseRunState accepts the names String returns, plus single-word forms.
func ParseRunState(s string) (RunState, bool) {
	for r := Idle; r <= BlockedByWindow; r++ {
		if s == r.String() {
			return r, true
		}
	}
	switch s {
	case "awaiting", "approval", "pending":
		return AwaitingApproval, true
	case "blocked", "window":
		return BlockedByWindow, true
	}
	return 0, false
}
