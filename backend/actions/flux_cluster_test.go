package actions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
)

const (
	planID = "plan-main-1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
	lockID = "f2ab685b-f84d-ac0b-a125-378a22877e8d"
)

func TestClusterFluxAndTofuActionsWriteWhatTheControllersRead(t *testing.T) {
	forEachFluxGeneration(t, func(e *env, set string, cases []fluxCase) {
		for _, c := range cases {
			e.sub(c.String()+"/suspend and resume", func(t *testing.T, e *env) { suspendAndResume(t, e, c) })
			e.sub(c.String()+"/a freeze leaves an already suspended unit suspended", func(t *testing.T, e *env) { freezeAndThaw(t, e, c) })
			e.sub(c.String()+"/refresh", func(t *testing.T, e *env) { refresh(t, e, c) })
			switch c.engine {
			case model.EngineHelmRelease:
				e.sub(c.String()+"/force and reset", func(t *testing.T, e *env) { forceAndReset(t, e, c) })
			case model.EngineTerraform:
				e.sub(c.String()+"/approve", func(t *testing.T, e *env) { approve(t, e, c) })
				e.sub(c.String()+"/replan", func(t *testing.T, e *env) { replan(t, e, c) })
				e.sub(c.String()+"/force-unlock", func(t *testing.T, e *env) { forceUnlock(t, e, c) })
			}
		}
	})
}

// tracksFields: on a Terraform created through tofu-controller v0.16's
// v1alpha1 the API server records no managed fields for any later write, by
// any manager through either version (checked), so there is no field owner
// to assert.
func tracksFields(c fluxCase) bool {
	return !(c.engine == model.EngineTerraform && c.gvr.Version == "v1alpha1")
}

func suspendAndResume(t *testing.T, e *env, c fluxCase) {
	for _, start := range []struct{ spec, previous string }{{"", "null"}, {`"suspend":false`, "false"}} {
		name := "web-" + strings.Trim(start.previous, "\"")
		e.fluxObj(c, name, start.spec, "", "")
		key := e.key(c.engine, name)
		e.mustRun(Request{Kind: Pause, Key: key, Reason: "INC-7: hold deploys"})
		o := e.read(c, name)
		if v, _ := lookup(o.Object, "spec", "suspend"); v != true {
			t.Fatalf("spec.suspend %v after pause, want true", v)
		}
		ann := o.GetAnnotations()
		if ann[pause.AnnotationPrevious] != start.previous || ann[pause.AnnotationMode] != pause.ModeSuspend ||
			ann[pause.AnnotationReason] != "INC-7: hold deploys" || ann[pause.AnnotationBy] != e.actor {
			t.Errorf("pause record %v, want previous %s, mode suspend, reason and actor", ann, start.previous)
		}
		if f := managedBy(o, fluxFieldManager); tracksFields(c) && (!strings.Contains(f, `"f:suspend"`) || !strings.Contains(f, `"f:driftdeck.io/paused-previous"`)) {
			t.Errorf("spec.suspend and the record must be owned by %s, managedFields: %s", fluxFieldManager, f)
		}
		if ev := e.events(name); !contains(ev, "DriftdeckPause: "+e.actor+" suspended "+key.Ref()+": INC-7") {
			t.Errorf("events %v", ev)
		}

		e.mustRun(Request{Kind: Resume, Key: key, Reason: "INC-7 over"})
		o = e.read(c, name)
		got, present := lookup(o.Object, "spec", "suspend")
		if (start.previous == "null" && present) || (start.previous == "false" && got != false) {
			t.Errorf("spec.suspend after resume: %v (present %v), want as before the pause (%s)", got, present, start.previous)
		}
		for k := range o.GetAnnotations() {
			if strings.HasPrefix(k, "driftdeck.io/paused-") {
				t.Errorf("resume left %s", k)
			}
		}
	}
}

// freezeAndThaw pauses and resumes a unit that was suspended before the
// freeze and one that was not: only the second changes, both ways.
func freezeAndThaw(t *testing.T, e *env, c fluxCase) {
	e.fluxObj(c, "held", `"suspend":true`, "", "")
	e.fluxObj(c, "live", "", "", "")
	keys := []model.Key{e.key(c.engine, "held"), e.key(c.engine, "live")}
	ctx := context.Background()
	out := e.exec.Bulk(ctx, BulkRequest{Kind: Pause, Keys: keys, Reason: "INC-9 freeze"})
	if out[0].Outcome != OutcomeSkipped || !strings.Contains(out[0].Why, "already suspended") || out[1].Outcome != OutcomeApplied {
		t.Fatalf("freeze: %+v", out)
	}
	out = e.exec.Bulk(ctx, BulkRequest{Kind: Resume, Keys: keys, Reason: "INC-9 thaw"})
	if out[0].Outcome != OutcomeSkipped || !strings.Contains(out[0].Why, "suspended by somebody else") || out[1].Outcome != OutcomeApplied {
		t.Fatalf("thaw: %+v", out)
	}
	if v, _ := lookup(e.read(c, "held").Object, "spec", "suspend"); v != true {
		t.Errorf("the unit suspended before the freeze is %v after the thaw, want still suspended", v)
	}
	if v, present := lookup(e.read(c, "live").Object, "spec", "suspend"); present {
		t.Errorf("the frozen unit keeps spec.suspend %v after the thaw", v)
	}
}

func refresh(t *testing.T, e *env, c fluxCase) {
	e.fluxObj(c, "web", "", `"team":"payments"`, `"lastHandledReconcileAt":"2026-11-01T00:00:00Z"`)
	key := e.key(c.engine, "web")
	res := e.mustRun(Request{Kind: Refresh, Key: key})
	if _, err := time.Parse(time.RFC3339Nano, res.Token); err != nil || res.Token == "2026-11-01T00:00:00Z" {
		t.Fatalf("token %q: want a new RFC 3339 time, as the flux CLI writes", res.Token)
	}
	o := e.read(c, "web")
	if got := o.GetAnnotations()[flux.AnnotationRequestedAt]; got != res.Token {
		t.Errorf("requestedAt %q, want the token %q", got, res.Token)
	}
	if o.GetAnnotations()["team"] != "payments" {
		t.Error("the other annotations were replaced")
	}
	if f := managedBy(o, fluxFieldManager); tracksFields(c) && !strings.Contains(f, `"f:`+flux.AnnotationRequestedAt+`"`) {
		t.Errorf("requestedAt must be owned by %s: %s", fluxFieldManager, f)
	}
	e.mergePatch(c.gvr, "web", `{"spec":{"suspend":true}}`)
	_, err := e.run(Request{Kind: Refresh, Key: key})
	var r *Refusal
	if !errors.As(err, &r) || !r.NothingToDo || !strings.Contains(r.Reason, "suspended") {
		t.Errorf("a refresh of a suspended unit must be refused (the controller would apply nothing): %v", err)
	}
}

func forceAndReset(t *testing.T, e *env, c fluxCase) {
	e.fluxObj(c, "web", "", "", `"failures":3,"upgradeFailures":3,"lastAttemptedReleaseAction":"upgrade"`)
	key := e.key(c.engine, "web")
	for _, k := range []struct {
		kind       Kind
		annotation string
	}{{Force, flux.AnnotationForceAt}, {Reset, flux.AnnotationResetAt}} {
		res := e.mustRun(Request{Kind: k.kind, Key: key, Reason: "INC-3"})
		ann := e.read(c, "web").GetAnnotations()
		if ann[k.annotation] != res.Token || ann[flux.AnnotationRequestedAt] != res.Token {
			t.Errorf("%s: %s=%q requestedAt=%q, want both the token %q (helm-controller acts only on equal values)",
				k.kind, k.annotation, ann[k.annotation], ann[flux.AnnotationRequestedAt], res.Token)
		}
	}
	e.fluxObj(c, "fine", "", "", `"failures":0`)
	_, err := e.run(Request{Kind: Reset, Key: e.key(c.engine, "fine"), Reason: "x"})
	var r *Refusal
	if !errors.As(err, &r) || !r.NothingToDo {
		t.Errorf("reset without failures: %v", err)
	}
}

// pendingStatus is a plan waiting for approval, planned from generation 1.
// An older CRD version prunes what it does not know (lastPlannedGeneration).
const pendingStatus = `"plan":{"pending":"` + planID + `"},"lastPlannedGeneration":1,"lastPlannedRevision":"main@sha1:1a2b3c4d"`

func approve(t *testing.T, e *env, c fluxCase) {
	o := e.fluxObj(c, "infra", "", "", pendingStatus)
	key := e.key(c.engine, "infra")
	var r *Refusal
	_, err := e.run(Request{Kind: Approve, Key: key, Reason: "reviewed", Revision: planID[:16]})
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "only a prefix") {
		t.Fatalf("a prefix must be refused: %v", err)
	}
	if got := lookupString(e.read(c, "infra").Object, "spec", "approvePlan"); got != "" {
		t.Fatalf("a refused approval wrote spec.approvePlan %q", got)
	}
	plan := e.planned(Request{Kind: Approve, Key: key, Reason: "reviewed", Revision: planID})
	if !strings.Contains(plan.Summary, planID) || !contains(plan.Changes, "spec.approvePlan: (unset) → "+planID) {
		t.Errorf("the plan must name the full id: %s %v", plan.Summary, plan.Changes)
	}
	e.mustSend(plan)
	after := e.read(c, "infra")
	if got := lookupString(after.Object, "spec", "approvePlan"); got != planID {
		t.Errorf("spec.approvePlan %q, want the full pending id %s", got, planID)
	}
	if after.GetGeneration() == o.GetGeneration() {
		t.Error("the approval must be a spec change (the controller compares generations)")
	}
	if f := managedBy(after, fluxFieldManager); tracksFields(c) && !strings.Contains(f, `"f:approvePlan"`) {
		t.Errorf("spec.approvePlan must be owned by %s: %s", fluxFieldManager, f)
	}

	// Already applied: the controller moved the plan to lastApplied.
	e.fluxObj(c, "done", "", "", `"plan":{"pending":"","lastApplied":"`+planID+`"}`)
	_, err = e.run(Request{Kind: Approve, Key: e.key(c.engine, "done"), Reason: "x", Revision: planID})
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "already applied") {
		t.Errorf("approving an applied plan: %v", err)
	}

	if c.gvr.Version == "v1alpha1" {
		return // this version keeps no lastPlannedGeneration: staleness is unknown
	}
	// Stale: the spec changed after the plan the user reviewed.
	e.fluxObj(c, "stale", "", "", pendingStatus)
	skey := e.key(c.engine, "stale")
	seen := e.planned(Request{Kind: Approve, Key: skey, Reason: "reviewed", Revision: planID})
	e.mergePatch(c.gvr, "stale", `{"spec":{"interval":"5m"}}`)
	_, err = e.send(seen)
	if !errors.As(err, &r) || !strings.Contains(err.Error(), "stale") {
		t.Errorf("approving a plan made from an older generation: %v", err)
	}
	if got := lookupString(e.read(c, "stale").Object, "spec", "approvePlan"); got != "" {
		t.Errorf("a stale plan was approved: %q", got)
	}
}

func replan(t *testing.T, e *env, c fluxCase) {
	e.fluxObj(c, "infra", `"approvePlan":"`+planID+`"`, "", pendingStatus)
	res := e.mustRun(Request{Kind: Replan, Key: e.key(c.engine, "infra"), Reason: "new variables"})
	o := e.read(c, "infra")
	if got := lookupString(o.Object, "spec", "approvePlan"); got != "re"+planID {
		t.Errorf("spec.approvePlan %q, want tofu-controller's replan form re%s (the old approval withdrawn)", got, planID)
	}
	if o.GetAnnotations()[flux.AnnotationRequestedAt] != res.Token {
		t.Error("the replan must request a reconcile now")
	}
	if o.GetGeneration() == 1 {
		t.Error("the replan must move the generation past status.lastPlannedGeneration, which makes tofu-controller drop the pending plan")
	}
	if !contains(res.Plan.Warnings, "the approval is withdrawn") {
		t.Errorf("warnings %v", res.Plan.Warnings)
	}
}

func forceUnlock(t *testing.T, e *env, c fluxCase) {
	e.fluxObj(c, "infra", "", "", `"lock":{"pending":"`+lockID+`"}`)
	key := e.key(c.engine, "infra")
	var r *Refusal
	_, err := e.run(Request{Kind: ForceUnlock, Key: key, Reason: "runner died", LockID: "0000"})
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "not the 0000 you saw") {
		t.Fatalf("a lock other than the one seen: %v", err)
	}
	plan := e.planned(Request{Kind: ForceUnlock, Key: key, Reason: "runner died", LockID: lockID})
	if !strings.Contains(plan.Summary, lockID) {
		t.Errorf("the confirm text must name the lock: %s", plan.Summary)
	}
	res := e.mustSend(plan)
	o := e.read(c, "infra")
	if lookupString(o.Object, "spec", "tfstate", "forceUnlock") != "yes" || lookupString(o.Object, "spec", "tfstate", "lockIdentifier") != lockID {
		t.Errorf("spec.tfstate %v: tofu-controller unlocks when forceUnlock is yes and lockIdentifier equals status.lock.pending", lookupMap(o.Object, "spec", "tfstate"))
	}
	if o.GetAnnotations()[flux.AnnotationRequestedAt] != res.Token {
		t.Error("a force-unlock must request a reconcile, as tfctl does")
	}
	e.fluxObj(c, "free", "", "", `"lock":{"pending":""}`)
	if _, err := e.run(Request{Kind: ForceUnlock, Key: e.key(c.engine, "free"), Reason: "x"}); !errors.As(err, &r) {
		t.Errorf("no lock held: %v", err)
	}
}
