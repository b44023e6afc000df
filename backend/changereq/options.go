package changereq

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
)

// Options are an action's options as a request stores them: everything of
// actions.Request but the unit, the kind and the reason, which the request
// holds itself.
type Options struct {
	Until              *time.Time `json:"until,omitempty"`
	Prune              bool       `json:"prune,omitempty"`
	Resources          []Resource `json:"resources,omitempty"`
	Force              bool       `json:"force,omitempty"`
	SyncDryRun         bool       `json:"syncDryRun,omitempty"`
	ApplyOutOfSyncOnly bool       `json:"applyOutOfSyncOnly,omitempty"`
	Revision           string     `json:"revision,omitempty"`
	WithSource         bool       `json:"withSource,omitempty"`
	LockID             string     `json:"lockID,omitempty"`
	HistoryID          int64      `json:"historyID,omitempty"`
	Single             bool       `json:"single,omitempty"`
	AutoSync           *AutoSync  `json:"autoSync,omitempty"`
}

// Resource is one managed resource a sync is limited to.
type Resource struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// AutoSync is the policy a resume enables.
type AutoSync struct {
	SelfHeal bool `json:"selfHeal,omitempty"`
	Prune    bool `json:"prune,omitempty"`
}

// optionsOf stores a request's options.
func optionsOf(r actions.Request) Options {
	o := Options{Prune: r.Prune, Force: r.Force, SyncDryRun: r.SyncDryRun, ApplyOutOfSyncOnly: r.ApplyOutOfSyncOnly,
		Revision: r.Revision, WithSource: r.WithSource, LockID: r.LockID, HistoryID: r.HistoryID, Single: r.Single}
	if !r.Until.IsZero() {
		u := r.Until
		o.Until = &u
	}
	for _, x := range r.Resources {
		o.Resources = append(o.Resources, Resource(x))
	}
	if r.AutoSync != nil {
		o.AutoSync = &AutoSync{SelfHeal: r.AutoSync.SelfHeal, Prune: r.AutoSync.Prune}
	}
	return o
}

// request is the action the request asks for, on its unit in context.
func (c *ChangeRequest) request(context string) actions.Request {
	o := c.Spec.Options
	r := actions.Request{Kind: c.Spec.Action, Key: c.Key(context), Reason: c.Spec.Reason,
		Prune: o.Prune, Revision: o.Revision, WithSource: o.WithSource, LockID: o.LockID, HistoryID: o.HistoryID, Single: o.Single,
		SyncChoices: actions.SyncChoices{Force: o.Force, SyncDryRun: o.SyncDryRun, ApplyOutOfSyncOnly: o.ApplyOutOfSyncOnly}}
	if o.Until != nil {
		r.Until = *o.Until
	}
	for _, x := range o.Resources {
		r.Resources = append(r.Resources, actions.Resource(x))
	}
	if o.AutoSync != nil {
		r.AutoSync = &actions.AutoSyncPolicy{SelfHeal: o.AutoSync.SelfHeal, Prune: o.AutoSync.Prune}
	}
	return r
}
