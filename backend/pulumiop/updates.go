package pulumiop

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// Update is what driftdeck keeps of an auto.pulumi.com Update object.
type Update struct {
	Context, Namespace, Name string
	Stack                    string // the Stack object's name (label pulumi.com/stack-name)
	Type                     string // preview, up, destroy, refresh
	Progressing, Complete    bool
	Failed                   bool
	Reason                   string
	Message                  string
	Started, Ended           time.Time
	Created                  time.Time
}

// ConvertUpdate reads an Update object, its texts clipped as a unit's are
// (model.Clip): the index keeps every Update seen.
func ConvertUpdate(context string, obj map[string]any) Update {
	r := objread.New(obj)
	u := Update{
		Context:   context,
		Namespace: r.Str("metadata", "namespace"),
		Name:      r.Str("metadata", "name"),
		Stack:     r.StringMap("metadata", "labels")[LabelStackName],
		Type:      r.Str("spec", "type"),
		Message:   model.Clip(r.Str("status", "message")),
		Started:   r.Time("status", "startTime"),
		Ended:     r.Time("status", "endTime"),
		Created:   r.Time("metadata", "creationTimestamp"),
	}
	for _, c := range r.Objects("status", "conditions") {
		on := c.Str("status") == "True"
		switch c.Str("type") {
		case "Progressing":
			u.Progressing = on
		case "Complete":
			u.Complete = on
		case "Failed":
			u.Failed = on
			if on {
				u.Reason = model.Clip(c.Str("reason"))
			}
		}
	}
	return u
}

// Phase names the Update's state in one word.
func (u Update) Phase() string {
	switch {
	case u.Complete && u.Failed:
		return "failed"
	case u.Complete:
		return "succeeded"
	case u.Progressing:
		return "running"
	}
	return "pending"
}

// UpdateIndex follows every Update seen and classifies Stacks against them: a
// Stack whose currentUpdate names an Update that does not exist is wedged.
type UpdateIndex struct {
	mu      sync.RWMutex
	updates map[updateKey]Update
	synced  map[string]bool // per context: the initial list has arrived
	// Grace is how long a missing Update is allowed (the operator records
	// currentUpdate before it creates the Update).
	Grace time.Duration
}

type updateKey struct{ context, namespace, name string }

// NewUpdateIndex returns an empty index.
func NewUpdateIndex() *UpdateIndex {
	return &UpdateIndex{updates: map[updateKey]Update{}, synced: map[string]bool{}, Grace: time.Minute}
}

// Put records an Update.
func (x *UpdateIndex) Put(u Update) {
	x.mu.Lock()
	x.updates[updateKey{u.Context, u.Namespace, u.Name}] = u
	x.mu.Unlock()
}

// Remove forgets an Update.
func (x *UpdateIndex) Remove(context, namespace, name string) {
	x.mu.Lock()
	delete(x.updates, updateKey{context, namespace, name})
	x.mu.Unlock()
}

// Replace sets all Updates of a context (one namespace, or all when "").
func (x *UpdateIndex) Replace(context, namespace string, us []Update) {
	x.mu.Lock()
	for k := range x.updates {
		if k.context == context && (namespace == "" || k.namespace == namespace) {
			delete(x.updates, k)
		}
	}
	for _, u := range us {
		x.updates[updateKey{u.Context, u.Namespace, u.Name}] = u
	}
	x.synced[context] = true
	x.mu.Unlock()
}

// ForStack lists the Updates of a Stack, newest first.
func (x *UpdateIndex) ForStack(context, namespace, stack string) []Update {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []Update
	for k, u := range x.updates {
		if k.context == context && k.namespace == namespace && u.Stack == stack {
			out = append(out, u)
		}
	}
	sortNewestFirst(out)
	return out
}

// Classify implements store.Classifier for Stacks with a currentUpdate.
func (x *UpdateIndex) Classify(u *model.Unit, now time.Time) bool {
	if u.Stack == nil || u.Stack.CurrentUpdate == "" {
		return false
	}
	x.mu.RLock()
	up, ok := x.updates[updateKey{u.Key.Context, u.Key.Namespace, u.Stack.CurrentUpdate}]
	synced := x.synced[u.Key.Context]
	x.mu.RUnlock()
	switch {
	case ok && up.Progressing:
		u.Observed, u.RunReason = model.Running, up.Type+" "+up.Name+" running"
		if !up.Started.IsZero() {
			u.RunSince = up.Started
		}
	case ok && up.Complete:
		u.Observed, u.RunReason = model.Running, up.Type+" "+up.Name+" finished ("+up.Phase()+"); waiting for the operator to record it"
	case ok:
		u.Observed, u.RunReason = model.Running, up.Type+" "+up.Name+" not started yet"
		u.RunSince = up.Created
	case synced && now.Sub(missingSince(u)) > x.Grace:
		u.Observed = model.Stuck
		u.RunReason = "currentUpdate names Update " + u.Stack.CurrentUpdate + ", which does not exist"
		u.StuckRule = "status.currentUpdate names a missing Update for longer than " + model.HumanDuration(x.Grace) + ": the Stack is wedged until currentUpdate is cleared"
	case synced:
		return true // missing, still within the grace period
	}
	return false
}

// missingSince dates a missing current Update: the operator names Updates
// <stack>-<creation time in hex milliseconds>, and records currentUpdate just
// before creating it. Without a readable name, the run's start is used.
func missingSince(u *model.Unit) time.Time {
	name := u.Stack.CurrentUpdate
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if ms, err := strconv.ParseInt(name[i+1:], 16, 64); err == nil && ms > 0 {
			return time.UnixMilli(ms)
		}
	}
	if u.RunSince.IsZero() {
		return time.Now()
	}
	return u.RunSince
}
