// Package pulumistate reads Pulumi state backends (DIY buckets and Pulumi
// Cloud) for what driftdeck shows of a stack: its last update, resource
// count, pending operations and lock holder; and it unsticks stacks left
// locked or with pending operations by a run that died (DESIGN.md section
// 3, "Stuck runs").
//
// Every repair is planned first: Repair.Changes names exactly what will be
// deleted or rewritten, and Repair.Apply does it only if the state is still
// what was planned.
package pulumistate

import (
	"context"
	"errors"
	"net/url"
	"time"
)

// StackRef names a stack. DIY backends use the organization "organization";
// stacks of a legacy DIY layout have no project.
type StackRef struct {
	Org, Project, Stack string
}

func (r StackRef) String() string {
	if r.Project == "" {
		return r.Stack
	}
	return r.Org + "/" + r.Project + "/" + r.Stack
}

// StackInfo is what a backend knows of one stack.
type StackInfo struct {
	Ref        StackRef
	Resources  int // -1 when unknown
	LastUpdate *Update
	Pending    []PendingOperation
	Locks      []Lock
	// Torn: keys of objects whose file:// sidecar a killed writer left
	// torn (objstore.Sidecars); the pulumi CLI cannot read them.
	Torn []string
	// Partial: a listing filled only the summary (Pulumi Cloud lists
	// without locks or pending operations; Backend.Stack has them).
	Partial bool
}

// Update is one entry of a stack's history.
type Update struct {
	ID         string // Pulumi Cloud's update id or version; "" on DIY
	Kind       string // update, preview, refresh, destroy, import, ...
	Result     string // succeeded, failed, in-progress, ...
	Message    string
	Start, End time.Time
	Changes    map[string]int // resources per operation
}

// PendingOperation is a resource operation the engine started and never
// recorded as finished: the resource's real state is unknown.
type PendingOperation struct {
	Type string // creating, updating, deleting, reading, importing
	URN  string
}

// Holder says whether a lock's owner still runs.
type Holder string

const (
	HolderAlive   Holder = "alive"   // on this host, the process runs
	HolderDead    Holder = "dead"    // on this host, the process is gone
	HolderUnknown Holder = "unknown" // another host, or the backend does not say
)

// Lock is a stack's lock and who holds it.
type Lock struct {
	ID     string // DIY: the lock object's key; Pulumi Cloud: the update id
	PID    int    // 0 when the backend does not say
	User   string
	Host   string
	Kind   string // Pulumi Cloud: the kind of operation holding it
	Since  time.Time
	Holder Holder
}

// Age is how long the lock has been held at now.
func (l Lock) Age(now time.Time) time.Duration { return now.Sub(l.Since) }

// Repair is a planned change to a backend. Changes describes it exactly,
// one line per object deleted or rewritten, for a confirmation dialog.
type Repair struct {
	Summary string
	Changes []string
	apply   func(context.Context) error
}

// Apply carries out the repair. It fails without changing anything when
// the state moved on since the repair was planned.
func (r *Repair) Apply(ctx context.Context) error { return r.apply(ctx) }

// Backend is a state backend.
type Backend interface {
	// Stacks lists every stack the backend holds.
	Stacks(ctx context.Context) ([]StackInfo, error)
	// Stack reads one stack in full.
	Stack(ctx context.Context, ref StackRef) (StackInfo, error)
	// BreakLock plans the release of the stack's lock. Without force it
	// refuses a lock whose holder still runs on this host.
	BreakLock(ctx context.Context, ref StackRef, force bool) (*Repair, error)
	// ClearPending plans the removal of the stack's pending operations.
	ClearPending(ctx context.Context, ref StackRef) (*Repair, error)
	// RemoveTorn plans the removal of the torn sidecars in StackInfo.Torn.
	RemoveTorn(ctx context.Context, ref StackRef) (*Repair, error)
	Close() error
}

// ErrNothingToDo is returned when asked to break a lock that is not held,
// to clear pending operations there are none of, or to remove torn
// sidecars there are none of.
var ErrNothingToDo = errors.New("nothing to repair")

// Open connects to the backend at rawURL: https:// or http:// is Pulumi
// Cloud (or a self-hosted service), anything else a DIY bucket (file://,
// s3://, gs://, azblob://).
func Open(ctx context.Context, rawURL string) (Backend, error) {
	if _, err := url.Parse(rawURL); err != nil {
		return nil, err
	}
	if IsCloud(rawURL) {
		c, err := OpenCloud(rawURL)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	d, err := OpenDIY(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// IsCloud tells whether the backend at rawURL is Pulumi Cloud (or a
// self-hosted service), where breaking a lock cancels an update that the
// service cannot say is dead.
func IsCloud(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http")
}
