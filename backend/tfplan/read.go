package tfplan

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// Reader reads the readable plans of Terraform units by key.
type Reader struct {
	Cluster     func(context string) (*kube.Cluster, bool)
	DiffOptions diff.Options
}

// ErrNoReadablePlan means tofu-controller stored no readable form of the
// plan (spec.storeReadablePlan is none, or no plan was made yet).
var ErrNoReadablePlan = errors.New("no readable plan stored")

// Read reads the Terraform fresh and the readable plan tofu-controller
// stored for it: the human one when present, else the JSON one.
func (r *Reader) Read(ctx context.Context, k model.Key) (*Plan, error) {
	if k.Engine != model.EngineTerraform {
		return nil, fmt.Errorf("%s is not a tofu-controller Terraform", k.Ref())
	}
	c, ok := r.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	obj, err := getTerraform(ctx, c, k)
	if err != nil {
		return nil, err
	}
	u := tofu.Convert(k.Context, obj)
	f := u.Tofu
	if f.DriftFound && f.PendingPlan == "" {
		return r.driftResult(k, f)
	}
	p, err := r.readStored(ctx, c, k, f)
	if errors.Is(err, ErrNoReadablePlan) && f.DriftFound {
		return r.driftResult(k, f)
	}
	if err != nil {
		return nil, err
	}
	p.Pending = f.PendingPlan
	switch {
	case f.PendingPlan == "":
		p.Warnings = append(p.Warnings, "no plan is pending (status.plan.pending is empty): this is the last plan stored, nothing waits for approval")
	case p.ID != f.PendingPlan:
		p.Warnings = append(p.Warnings, fmt.Sprintf("the stored plan is %s but the pending plan is %s: wait for the controller to store the new plan before approving", orNone(p.ID), f.PendingPlan))
	case f.PlanStale:
		p.Warnings = append(p.Warnings, fmt.Sprintf("the plan is stale: made at generation %d, the spec is at generation %d", f.LastPlannedGen, u.Generation))
	}
	return p, nil
}

func (r *Reader) readStored(ctx context.Context, c *kube.Cluster, k model.Key, f *model.TofuFacts) (*Plan, error) {
	human, err := readConfigMap(ctx, c.Kube, k.Namespace, f.Workspace, k.Name)
	if err != nil {
		return nil, err
	}
	if human != nil {
		p, err := ParseHuman(string(human.data), r.DiffOptions)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", human.where, err)
		}
		p.ID, p.Where = human.id, human.where
		return p, nil
	}
	js, err := readSecret(ctx, c.Kube, k.Namespace, f.Workspace, k.Name, JSONSuffix)
	if err != nil {
		return nil, err
	}
	if js != nil {
		p, err := ParseJSON(js.data, r.DiffOptions)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", js.where, err)
		}
		p.ID, p.Where = js.id, js.where
		return p, nil
	}
	mode := f.StoreReadablePlan
	if mode == "" {
		mode = "none"
	}
	why := "spec.storeReadablePlan is " + mode + ": set it to human or json to read plans here, or run `tfctl show plan`"
	if f.StoreReadablePlan == "human" || f.StoreReadablePlan == "json" {
		why = "spec.storeReadablePlan is " + mode + ", and tofu-controller writes one with each plan it keeps: none is stored now"
		if f.PendingPlan == "" {
			why += ", and no plan is pending"
		}
	}
	return nil, fmt.Errorf("%s: %w (no ConfigMap or Secret %s[.json]; %s)", k.Ref(), ErrNoReadablePlan, ObjectName(f.Workspace, k.Name, ""), why)
}

// driftResult reads what drift detection found, from the Ready condition:
// tofu-controller keeps no file of the plan it made to detect drift, only
// `tofu show -no-color` of it there (cut at 20,000 characters).
func (r *Reader) driftResult(k model.Key, f *model.TofuFacts) (*Plan, error) {
	ready := flux.Condition(f.Conditions, "Ready")
	p, err := ParseHuman(ready.Message, r.DiffOptions)
	if err != nil {
		return nil, fmt.Errorf("%s: the drift detection result in its Ready condition: %w", k.Ref(), err)
	}
	if len(p.Resources) == 0 {
		return nil, fmt.Errorf("%s: drift detected, but its Ready condition holds no plan to show (%q): the runner's log has it (driftdeck logs %s)", k.Ref(), model.FirstLine(ready.Message), k.Ref())
	}
	p.Where = "the Ready condition (DriftDetected)"
	when := "drift detected"
	if !f.LastDriftAt.IsZero() {
		when += " at " + f.LastDriftAt.UTC().Format(time.RFC3339)
	}
	p.Warnings = append(p.Warnings, when+": this is drift detection's plan, which tofu-controller does not keep; nothing waits for approval until the controller plans again")
	if len(ready.Message) >= driftMessageLimit {
		p.Warnings = append(p.Warnings, "the controller cut the result at 20,000 characters: the last resources may be missing (the runner's log has them whole)")
	}
	return p, nil
}

// driftMessageLimit is where tofu-controller cuts a condition's message
// (MaxConditionMessageLength), "..." appended.
const driftMessageLimit = 20000

func getTerraform(ctx context.Context, c *kube.Cluster, k model.Key) (map[string]any, error) {
	var last error
	for _, gvr := range tofu.Terraforms {
		obj, err := c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
		if err == nil {
			return obj.Object, nil
		}
		if kube.ObjectMissing(err) {
			return nil, fmt.Errorf("%s does not exist (any more)", k.Ref())
		}
		last = err
	}
	return nil, fmt.Errorf("reading %s: %w", k.Ref(), last)
}

func orNone(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}
