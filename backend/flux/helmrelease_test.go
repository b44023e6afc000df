package flux

import (
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

func TestHelmReleaseReadyReadsHistoryAndSource(t *testing.T) {
	u := derived(ConvertHelmRelease("prod", load(t, "helmrelease.json")))
	if u.Key.Ref() != "helmrelease/ingress/ingress-nginx" || len(u.ReadErrors) > 0 {
		t.Fatalf("%v %v", u.Key, u.ReadErrors)
	}
	h := u.Flux.Helm
	if u.Run != model.Idle || u.Sync != model.InSync || u.Applied != "4.11.3" || u.Automation != model.SelfHeal {
		t.Fatalf("run %v sync %v applied %q automation %v", u.Run, u.Sync, u.Applied, u.Automation)
	}
	if u.Flux.Source.String() != "HelmRepository/flux-system/ingress-nginx" || h.Chart != "ingress-nginx" || len(h.History) != 2 || h.History[1].Status != "superseded" {
		t.Fatalf("source %q chart %q history %+v", u.Flux.Source, h.Chart, h.History)
	}
	if h.UpgradeRetries != 3 || h.RetriesExhausted {
		t.Fatalf("%+v", h)
	}
}

func TestHelmReleaseRemediation(t *testing.T) {
	failedUpgrade := func(failures int64) func(map[string]any) {
		return func(o map[string]any) {
			set(o, "4.12.0", "status", "lastAttemptedRevision")
			set(o, failures, "status", "upgradeFailures")
			set(o, failures, "status", "failures")
			set(o, conds(cond("Ready", "False", "UpgradeFailed", "Helm upgrade failed for release ingress/ingress-nginx with chart ingress-nginx@4.12.0: context deadline exceeded", time.Minute),
				cond("Reconciling", "True", ReasonProgressingWithRetry, "Helm upgrade failed", 4*time.Minute)), "status", "conditions")
		}
	}
	for _, c := range []struct {
		name      string
		edit      func(map[string]any)
		run       model.RunState
		reason    string
		rule      string
		exhausted bool
	}{
		{"upgrade failing, retries left", failedUpgrade(1), model.Failed, "UpgradeFailed: Helm upgrade failed for release ingress/ingress-nginx with chart ingress-nginx@4.12.0: context deadline exceeded (upgrade failure 1 of 3 allowed retries)", "", false},
		{"retries exhausted", func(o map[string]any) {
			failedUpgrade(3)(o)
			set(o, append(o["status"].(map[string]any)["conditions"].([]any), cond("Stalled", "True", ReasonRetriesExceeded, "Failed to upgrade after 4 attempt(s)", time.Minute)), "status", "conditions")
		}, model.Stuck, "Stalled: RetriesExceeded: Failed to upgrade after 4 attempt(s)", "upgrade retries exhausted (upgrade failure 3 of 3 allowed retries): helm-controller does nothing until the spec changes or a reset or force is requested", true},
		{"install retried forever", func(o map[string]any) {
			set(o, int64(-1), "spec", "install", "remediation", "retries")
			set(o, "install", "status", "lastAttemptedReleaseAction")
			set(o, int64(7), "status", "installFailures")
			delete(o["status"].(map[string]any), "history")
			set(o, conds(cond("Ready", "False", "InstallFailed", "Helm install failed", time.Minute)), "status", "conditions")
		}, model.Failed, "(install failure 7, retried forever)", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := load(t, "helmrelease.json")
			c.edit(obj)
			u := derived(ConvertHelmRelease("prod", obj))
			if u.Run != c.run || !strings.Contains(u.RunReason, c.reason) || !strings.Contains(u.StuckRule, c.rule) || u.Flux.Helm.RetriesExhausted != c.exhausted {
				t.Errorf("run %v %q rule %q exhausted %v", u.Run, u.RunReason, u.StuckRule, u.Flux.Helm.RetriesExhausted)
			}
			checkSlim(t, obj, DecodeHelmRelease, ConvertHelmRelease)
		})
	}
}

func TestHelmReleaseChartRefAndFailedReleaseIsDrifted(t *testing.T) {
	obj := load(t, "helmrelease.json")
	delete(obj["spec"].(map[string]any), "chart")
	set(obj, map[string]any{"kind": "OCIRepository", "name": "podinfo"}, "spec", "chartRef")
	hist := obj["status"].(map[string]any)["history"].([]any)
	hist[0].(map[string]any)["status"] = "failed"
	u := ConvertHelmRelease("prod", obj)
	if u.Flux.Source.String() != "OCIRepository/ingress/podinfo" || u.Sync != model.Drifted || !strings.Contains(u.SyncNative, "release 4 failed") {
		t.Fatalf("source %q sync %v %q", u.Flux.Source, u.Sync, u.SyncNative)
	}
	checkSlim(t, obj, DecodeHelmRelease, ConvertHelmRelease)
}
