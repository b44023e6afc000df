// Package undo answers, before a resume or a thaw is confirmed, "what will
// the reconciler change once its automation is back?": for an Argo CD
// Application the resources self-heal or auto-sync will write, field by
// field (the hand fix it will revert); for a Flux Kustomization what the
// controller will apply; for a Terraform its pending plan; for a Stack whose
// program runs on this machine its preview. It reads what the diff screen
// reads (a Differ, and a Previewer for Stacks), and says when the
// reconciler will act.
package undo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Differ says what a sync, reconcile or apply of a unit would change.
type Differ interface {
	Diff(ctx context.Context, k model.Key) (*argodiff.Result, error)
}

// Forecast is what a unit's reconciler will change once resumed.
type Forecast struct {
	Key model.Key
	// When says when and how the reconciler makes the changes.
	When string
	// Objects are the objects it will write, in the diff's order.
	Objects []Object
	// Source is where the diff came from (an Argo CD API server, a local
	// render, a stored plan).
	Source string
	// Err is why the changes could not be computed.
	Err error
	// diffed: the unit's diff was read (not when the reconciler stays idle).
	diffed bool
	// see is the driftdeck command that shows the changes driftdeck
	// cannot forecast here (a Stack's preview runs its program).
	see string
}

// Object is one object the reconciler will change.
type Object struct {
	Name string // e.g. apps/Deployment/shop/web
	// What: "reverted" (modified), "created", "deleted" or, for an object
	// the source no longer has and no prune removes, "left in place".
	What   string
	Fields []diff.FieldChange
}

// Timeout bounds the diffs a confirmation waits for (a local render
// fetches the source): past it a forecast says it cannot tell, and the
// resume can still go ahead.
const Timeout = 60 * time.Second

// All forecasts the resumes of plans, four at a time, within Timeout, in
// the plans' order.
func All(ctx context.Context, d Differ, plans []*actions.Plan) []Forecast {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	out := make([]Forecast, len(plans))
	var g errgroup.Group
	g.SetLimit(4)
	for i, p := range plans {
		g.Go(func() error {
			out[i] = Of(ctx, d, p)
			return nil
		})
	}
	_ = g.Wait() // a forecast carries its own error
	return out
}

// Of forecasts the resume a plan writes: the diff of its unit, read with d,
// and the policy the plan restores.
func Of(ctx context.Context, d Differ, p *actions.Plan) Forecast {
	k := p.Request.Key
	f := Forecast{Key: k}
	switch k.Engine {
	case model.EngineArgoCD:
		policy := restoredPolicy(p)
		f.When = policy.when()
		if !policy.enabled {
			return f
		}
		f.read(ctx, d, policy.prune)
	case model.EngineKustomization:
		f.When = "kustomize-controller applies these as soon as spec.suspend is false; objects gone from the source are deleted only when spec.prune is true"
		f.read(ctx, d, true)
	case model.EngineHelmRelease:
		f.When = "helm-controller upgrades the release as soon as spec.suspend is false; objects the chart no longer renders are deleted"
		f.read(ctx, d, true)
	case model.EngineTerraform:
		f.When = "tofu-controller plans again right away; this pending plan is applied only when spec.approvePlan is auto"
		f.read(ctx, d, true)
	case model.EnginePulumi:
		f.When = "the operator runs an update at once; its preview shows what it changes"
		if p, ok := d.(Previewer); ok && f.preview(ctx, p) {
			return f
		}
		f.see = "preview"
	default:
		f.When = "the controller reconciles at once; driftdeck has no diff of a " + string(k.Engine) + " yet"
	}
	return f
}

// read fills the objects from the unit's diff; prune says whether objects
// gone from the source are deleted.
func (f *Forecast) read(ctx context.Context, d Differ, prune bool) {
	res, err := d.Diff(ctx, f.Key)
	if err != nil {
		f.Err = err
		return
	}
	f.Source, f.diffed = res.Source, true
	for _, o := range res.Report.Objects {
		ob := Object{Name: o.Key.String(), Fields: o.Fields}
		switch o.Change {
		case diff.Unchanged:
			continue
		case diff.Modified:
			ob.What = "reverted"
		case diff.Added:
			ob.What = "created"
		case diff.Removed:
			ob.What = "deleted"
			if o.Warning != "" {
				ob.What += ": " + o.Warning
			}
			if !prune {
				ob.What = "left in place (prune is off)"
			}
		}
		f.Objects = append(f.Objects, ob)
	}
}

// argoPolicy is the automated sync policy a resume restores.
type argoPolicy struct {
	enabled, selfHeal, prune bool
}

// restoredPolicy reads the policy an Argo CD resume writes back: the one
// its pause recorded, or the one --auto-sync asks for.
func restoredPolicy(p *actions.Plan) argoPolicy {
	if p.Previous == "" {
		if a := p.Request.AutoSync; a != nil {
			return argoPolicy{enabled: true, selfHeal: a.SelfHeal, prune: a.Prune}
		}
		return argoPolicy{}
	}
	var automated struct {
		Enabled  *bool `json:"enabled"`
		SelfHeal bool  `json:"selfHeal"`
		Prune    bool  `json:"prune"`
	}
	if err := json.Unmarshal([]byte(p.Previous), &automated); err != nil {
		return argoPolicy{}
	}
	return argoPolicy{enabled: automated.Enabled == nil || *automated.Enabled, selfHeal: automated.SelfHeal, prune: automated.Prune}
}

func (a argoPolicy) when() string {
	switch {
	case !a.enabled:
		return "the restored policy keeps auto-sync off: nothing is applied until somebody syncs"
	case a.selfHeal:
		return fmt.Sprintf("self-heal is back: the controller writes these within seconds, reverting live edits%s", a.pruneNote())
	}
	return fmt.Sprintf("auto-sync is back without self-heal: these are written with the next revision (at once if one arrived during the pause); live edits stay until then%s", a.pruneNote())
}

func (a argoPolicy) pruneNote() string {
	if a.prune {
		return "; objects gone from the source are deleted"
	}
	return ""
}
