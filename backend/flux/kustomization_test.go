package flux

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

const newRev = "main@sha1:aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00"

func TestKustomizationReadyIsIdleInSyncAndSelfHealing(t *testing.T) {
	u := derived(ConvertKustomization("prod", load(t, "kustomization.json")))
	if u.Key.Ref() != "kustomization/flux-system/apps" || u.Kind != "Kustomization" || len(u.ReadErrors) > 0 {
		t.Fatalf("%+v %v", u.Key, u.ReadErrors)
	}
	if u.Run != model.Idle || u.Sync != model.InSync || u.Health != model.Healthy || u.Automation != model.SelfHeal || u.AutomationNative != "every 10m" {
		t.Fatalf("run %v sync %v health %v automation %v %q", u.Run, u.Sync, u.Health, u.Automation, u.AutomationNative)
	}
	f := u.Flux
	if f.Source.String() != "GitRepository/flux-system/flux-system" || !reflect.DeepEqual(f.DependsOn, []string{"flux-system/infra-controllers", "platform/crds"}) {
		t.Fatalf("source %q depends on %v", f.Source, f.DependsOn)
	}
	if u.Applied != "main@sha1:4b825dc642cb6eb9a060e54bf8d69288fbee4904" || u.Desired != u.Applied || f.RequestedAt != f.LastHandledAt {
		t.Fatalf("applied %q desired %q request %q handled %q", u.Applied, u.Desired, f.RequestedAt, f.LastHandledAt)
	}
}

func TestKustomizationStates(t *testing.T) {
	ready := cond("Ready", "True", "ReconciliationSucceeded", "Applied revision", time.Hour)
	for _, c := range []struct {
		name   string
		edit   func(obj map[string]any)
		run    model.RunState
		reason string // in RunReason
		rule   string // in StuckRule, "" when not stuck
	}{
		{"suspended", func(o map[string]any) { set(o, true, "spec", "suspend") }, model.Idle, "suspended", ""},
		{"reconcile requested", func(o map[string]any) {
			set(o, conds(ready), "status", "conditions")
			set(o, "2026-11-29T09:59:00Z", "metadata", "annotations", AnnotationRequestedAt)
		}, model.Running, "reconcile requested (2026-11-29T09:59:00Z), not handled yet", ""},
		{"reconciling", func(o map[string]any) {
			set(o, conds(cond("Ready", "Unknown", "Progressing", "Reconciliation in progress", time.Minute), cond("Reconciling", "True", "Progressing", "Running 'apply' with 12 objects", time.Minute)), "status", "conditions")
		}, model.Running, "Progressing: Running 'apply'", ""},
		{"reconciling too long", func(o map[string]any) {
			set(o, conds(cond("Ready", "Unknown", "Progressing", "Reconciliation in progress", 25*time.Minute), cond("Reconciling", "True", "Progressing", "Running health checks", 25*time.Minute)), "status", "conditions")
		}, model.Stuck, "health checks", "running for longer than the 10m threshold"},
		{"build failing, retried", func(o map[string]any) {
			set(o, newRev, "status", "lastAttemptedRevision")
			set(o, conds(cond("Ready", "False", "BuildFailed", "kustomize build failed: accumulating resources from './apps': /tmp/kustomization-123/apps: no such file", 30*time.Second),
				cond("Reconciling", "True", ReasonProgressingWithRetry, "kustomize build failed", 3*time.Minute)), "status", "conditions")
		}, model.Failed, "BuildFailed: kustomize build failed", ""},
		{"build failing past the threshold", func(o map[string]any) {
			set(o, newRev, "status", "lastAttemptedRevision")
			set(o, conds(cond("Ready", "False", "ReconciliationFailed", "Deployment/web dry-run failed: field is immutable", 30*time.Second),
				cond("Reconciling", "True", ReasonProgressingWithRetry, "", 40*time.Minute)), "status", "conditions")
		}, model.Stuck, "ReconciliationFailed", "failing (ReconciliationFailed) on revision " + newRev + " for longer than the 10m threshold"},
		{"dependency not ready", func(o map[string]any) {
			set(o, conds(cond("Ready", "False", ReasonDependencyNotReady, "dependency 'flux-system/infra-controllers' is not ready", 12*time.Minute)), "status", "conditions")
		}, model.Stuck, "DependencyNotReady: dependency 'flux-system/infra-controllers' is not ready", "waiting for a dependency (flux-system/infra-controllers, platform/crds) for longer than the 10m threshold"},
		{"source not ready", func(o map[string]any) {
			set(o, conds(cond("Ready", "False", ReasonArtifactFailed, "Source artifact not found, retrying in 30s", time.Minute)), "status", "conditions")
		}, model.Running, "ArtifactFailed", ""},
		{"stalled", func(o map[string]any) {
			set(o, conds(cond("Ready", "False", "AccessDenied", "cross-namespace references are not allowed", time.Minute), cond("Stalled", "True", "AccessDenied", "cross-namespace references are not allowed", time.Minute)), "status", "conditions")
		}, model.Stuck, "Stalled: AccessDenied", "Stalled condition is True"},
		{"never reconciled", func(o map[string]any) {
			delete(o, "status")
			delete(o["metadata"].(map[string]any), "annotations")
		}, model.Running, "not reconciled by the controller yet", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := load(t, "kustomization.json")
			c.edit(obj)
			u := derived(ConvertKustomization("prod", obj))
			if u.Run != c.run || !strings.Contains(u.RunReason, c.reason) {
				t.Errorf("run %v %q, want %v containing %q", u.Run, u.RunReason, c.run, c.reason)
			}
			if (c.rule == "") != (u.StuckRule == "") || !strings.Contains(u.StuckRule, c.rule) {
				t.Errorf("rule %q, want %q", u.StuckRule, c.rule)
			}
			checkSlim(t, obj, DecodeKustomization, ConvertKustomization)
		})
	}
}

func TestKustomizationNewRevisionNotAppliedIsDrifted(t *testing.T) {
	obj := load(t, "kustomization.json")
	set(obj, newRev, "status", "lastAttemptedRevision")
	u := ConvertKustomization("prod", obj)
	if u.Sync != model.Drifted || u.Desired != newRev || u.Applied == newRev {
		t.Fatalf("sync %v desired %q applied %q", u.Sync, u.Desired, u.Applied)
	}
	set(obj, true, "spec", "suspend")
	if u := ConvertKustomization("prod", obj); u.Automation != model.Suspended || u.Health != model.Healthy {
		t.Fatalf("suspended: %v %v", u.Automation, u.Health)
	}
}
