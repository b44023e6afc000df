package fleet

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

var (
	kustomizationGVK = schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}
	terraformGVK     = schema.GroupVersionKind{Group: "infra.contrib.fluxcd.io", Version: "v1alpha2", Kind: "Terraform"}
)

// fluxGenerations pairs the upstream Flux CRDs with tofu-controller's, then
// the project's own set.
func fluxGenerations(t *testing.T) [][]testcluster.CRDSet {
	var up []testcluster.CRDSet
	up = append(up, testcluster.UpstreamCRDSetsServing(t, kustomizationGVK)...)
	up = append(up, testcluster.UpstreamCRDSetsServing(t, terraformGVK)...)
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(up) == 0 {
		return [][]testcluster.CRDSet{{own}}
	}
	return [][]testcluster.CRDSet{up, {own}}
}

const (
	rev1 = "main@sha1:" + sha1
	rev2 = "main@sha1:" + sha2
)

// fluxCond is a status condition as the Flux runtime writes it.
func fluxCond(typ, status, reason, msg string, d time.Duration) string {
	return `{"type":"` + typ + `","status":"` + status + `","reason":"` + reason + `","message":"` + msg + `","lastTransitionTime":"` + ago(d) + `"}`
}

// seedFlux creates Flux and Terraform objects in every state; legacy also
// creates one through Terraform v1alpha1, which tofu-controller still serves.
func seedFlux(t *testing.T, dyn dynamic.Interface, ns string, withHelm, legacy bool) {
	ks := func(name, spec, status string) {
		create(t, dyn, flux.Kustomizations[0], obj(t, `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q,"namespace":%q},
			"spec":{"interval":"10m","prune":true,"path":"./apps","sourceRef":{"kind":"GitRepository","name":"apps"}%s},"status":%s}`, name, ns, spec, status), true)
	}
	ready := fluxCond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev1, time.Hour)
	ks("ready", ``, `{"observedGeneration":1,"lastAppliedRevision":"`+rev1+`","lastAttemptedRevision":"`+rev1+`","conditions":[`+ready+`]}`)
	ks("build-failing", ``, `{"lastAppliedRevision":"`+rev1+`","lastAttemptedRevision":"`+rev2+`","conditions":[`+
		fluxCond("Ready", "False", "BuildFailed", "kustomize build failed: no such file", time.Minute)+`,`+fluxCond("Reconciling", "True", "ProgressingWithRetry", "kustomize build failed", 40*time.Minute)+`]}`)
	ks("waiting", `,"dependsOn":[{"name":"ready"}]`, `{"conditions":[`+fluxCond("Ready", "False", "DependencyNotReady", "dependency '"+ns+"/infra' is not ready", time.Minute)+`]}`)
	ks("stalled", ``, `{"conditions":[`+fluxCond("Ready", "False", "AccessDenied", "cross-namespace references are not allowed", time.Minute)+`,`+fluxCond("Stalled", "True", "AccessDenied", "cross-namespace references are not allowed", time.Minute)+`]}`)
	ks("suspended", `,"suspend":true`, `{"lastAppliedRevision":"`+rev1+`","lastAttemptedRevision":"`+rev1+`","conditions":[`+ready+`]}`)

	if withHelm {
		hr := func(name, status string) {
			create(t, dyn, flux.HelmReleases[0], obj(t, `{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":%q,"namespace":%q},
				"spec":{"interval":"30m","chart":{"spec":{"chart":"podinfo","version":"6.x","sourceRef":{"kind":"HelmRepository","name":"podinfo"}}},"upgrade":{"remediation":{"retries":2}}},"status":%s}`, name, ns, status), true)
		}
		snapshot := func(version int, status, chart string) string {
			return `{"name":"podinfo","namespace":"` + ns + `","version":` + strconv.Itoa(version) + `,"status":"` + status + `","chartName":"podinfo","chartVersion":"` + chart +
				`","configDigest":"sha256:aa","digest":"sha256:bb","firstDeployed":"` + ago(time.Hour) + `","lastDeployed":"` + ago(time.Hour) + `"}`
		}
		hr("released", `{"lastAttemptedRevision":"6.7.1","history":[`+snapshot(2, "deployed", "6.7.1")+`],"conditions":[`+fluxCond("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded", time.Hour)+`]}`)
		hr("exhausted", `{"lastAttemptedRevision":"6.8.0","lastAttemptedReleaseAction":"upgrade","upgradeFailures":2,"failures":3,"history":[`+snapshot(3, "failed", "6.8.0")+`,`+snapshot(2, "deployed", "6.7.1")+`],"conditions":[`+
			fluxCond("Ready", "False", "UpgradeFailed", "Helm upgrade failed: timed out waiting for the condition", time.Minute)+`,`+fluxCond("Stalled", "True", "RetriesExceeded", "Failed to upgrade after 3 attempt(s)", time.Minute)+`]}`)
	}

	tf := func(version, name, spec, status string) {
		gvr := tofu.Terraforms[0]
		if version == "v1alpha1" {
			gvr = tofu.Terraforms[1]
		}
		create(t, dyn, gvr, obj(t, `{"apiVersion":"infra.contrib.fluxcd.io/%s","kind":"Terraform","metadata":{"name":%q,"namespace":%q},
			"spec":{"interval":"1h","path":"./eks","sourceRef":{"kind":"GitRepository","name":"infra"}%s},"status":%s}`, version, name, ns, spec, status), true)
	}
	planned := `"lastAttemptedRevision":"` + rev2 + `","lastPlannedRevision":"` + rev2 + `","lastAppliedRevision":"` + rev1 + `","lastPlannedGeneration":1,"lastPlanAt":"` + ago(time.Minute) + `"`
	tf("v1alpha2", "eks-cluster", ``, `{`+planned+`,"plan":{"pending":"plan-main-2222222222"},"conditions":[`+
		fluxCond("Ready", "Unknown", "TerraformPlannedWithChanges", "Plan generated: set approvePlan: \\\"plan-main-2222222222\\\" to approve this plan.", time.Minute)+`]}`)
	if legacy {
		tf("v1alpha1", "legacy-vpc", ``, `{`+planned+`,"plan":{"pending":"plan-main-2222222222"},"conditions":[`+
			fluxCond("Ready", "Unknown", "TerraformPlannedWithChanges", "Plan generated", time.Minute)+`]}`)
	}
	tf("v1alpha2", "locked", `,"approvePlan":"auto"`, `{"lock":{"pending":"f2ab9c3e-1d4b-7a2c-9e11-5b6c7d8e9f00"},"conditions":[`+
		fluxCond("Ready", "False", "LockHeld", "Error acquiring the state lock", time.Minute)+`,`+fluxCond("StateLocked", "True", "LockHeld", "Error acquiring the state lock", time.Minute)+`]}`)
	tf("v1alpha2", "plan-only", `,"planOnly":true`, `{`+planned+`,"plan":{"pending":"plan-main-2222222222"},"conditions":[`+
		fluxCond("Ready", "Unknown", "TerraformPlannedWithChanges", "Plan generated: This object is in the plan only mode.", time.Minute)+`]}`)
	tf("v1alpha2", "drifted", ``, `{"lastAppliedRevision":"`+rev1+`","lastAttemptedRevision":"`+rev1+`","lastDriftDetectedAt":"`+ago(time.Minute)+`","conditions":[`+
		fluxCond("Ready", "False", "DriftDetected", "Drift detected: aws_eks_node_group.default", time.Minute)+`]}`)
}

func TestClusterFluxAndTerraformUnits(t *testing.T) {
	for _, gen := range fluxGenerations(t) {
		t.Run(setNames(gen), func(t *testing.T) {
			c := testcluster.SharedServing(t, gen)
			dyn := dynamic.NewForConfigOrDie(c.Config())
			ns := c.Namespace(t)
			legacy := servesLegacyTerraform(t, gen)
			seedFlux(t, dyn, ns, true, legacy)

			f := startFleet(t, c, ns)
			units := map[string]*model.Unit{}
			for _, u := range f.Store.Snapshot() {
				units[u.Key.Ref()] = u
			}
			expect := []struct {
				unit   string
				run    model.RunState
				reason string
				rule   string
			}{
				{"kustomization/" + ns + "/ready", model.Idle, "", ""},
				{"kustomization/" + ns + "/build-failing", model.Stuck, "BuildFailed", "failing (BuildFailed) on revision " + rev2 + " for longer than the 10m threshold"},
				{"kustomization/" + ns + "/waiting", model.Running, "DependencyNotReady", ""},
				{"kustomization/" + ns + "/stalled", model.Stuck, "Stalled: AccessDenied", "Stalled condition is True"},
				{"kustomization/" + ns + "/suspended", model.Idle, "suspended", ""},
				{"helmrelease/" + ns + "/released", model.Idle, "", ""},
				{"helmrelease/" + ns + "/exhausted", model.Stuck, "RetriesExceeded", "upgrade retries exhausted (upgrade failure 2 of 2 allowed retries)"},
				{"terraform/" + ns + "/eks-cluster", model.AwaitingApproval, "plan plan-main-2222222222 waits for approval", "full id plan-main-2222222222"},
				{"terraform/" + ns + "/legacy-vpc", model.AwaitingApproval, "plan plan-main-2222222222", "full id"},
				{"terraform/" + ns + "/locked", model.Stuck, "state lock f2ab9c3e-1d4b-7a2c-9e11-5b6c7d8e9f00 held", "lockIdentifier: f2ab9c3e-1d4b-7a2c-9e11-5b6c7d8e9f00"},
				{"terraform/" + ns + "/plan-only", model.Idle, "plan only", ""},
				{"terraform/" + ns + "/drifted", model.Idle, "drift detected", ""},
			}
			for _, e := range expect {
				u, ok := units[e.unit]
				if !ok && (legacy || !strings.HasSuffix(e.unit, "/legacy-vpc")) {
					t.Errorf("%s missing from the model", e.unit)
					continue
				}
				if !ok {
					continue
				}
				if u.Run != e.run || !strings.Contains(u.RunReason, e.reason) || !strings.Contains(u.StuckRule, e.rule) {
					t.Errorf("%s: run %v %q rule %q, want %v containing %q, rule %q", e.unit, u.Run, u.RunReason, u.StuckRule, e.run, e.reason, e.rule)
				}
				if len(u.ReadErrors) > 0 {
					t.Errorf("%s: unreadable %v", e.unit, u.ReadErrors)
				}
			}
			if u := units["kustomization/"+ns+"/suspended"]; u != nil && u.Automation != model.Suspended {
				t.Errorf("suspended Kustomization: automation %v", u.Automation)
			}
			if u := units["kustomization/"+ns+"/waiting"]; u != nil && (len(u.Flux.DependsOn) != 1 || u.Flux.DependsOn[0] != ns+"/ready") {
				t.Errorf("dependsOn: %v", u.Flux.DependsOn)
			}
			if u := units["helmrelease/"+ns+"/exhausted"]; u != nil && (!u.Flux.Helm.RetriesExhausted || u.Applied != "6.7.1" || len(u.Flux.Helm.History) != 2) {
				t.Errorf("exhausted HelmRelease: %+v applied %q", u.Flux.Helm, u.Applied)
			}
			if u := units["terraform/"+ns+"/drifted"]; u != nil && (!u.Tofu.DriftFound || u.Sync != model.Drifted) {
				t.Errorf("drifted Terraform: drift %v sync %v", u.Tofu.DriftFound, u.Sync)
			}
		})
	}
}

func TestClusterFluxSuspendAndRequestReachTheModel(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	seedFlux(t, dyn, ns, false, false)
	f := startFleet(t, c, ns)
	key := model.Key{Context: "test", Engine: model.EngineKustomization, Namespace: ns, Name: "ready"}
	waitUnit := func(what string, ok func(*model.Unit) bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if u, found := f.Store.Get(key); found && ok(u) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		u, _ := f.Store.Get(key)
		t.Fatalf("%s did not reach the model: %+v", what, u)
	}
	patch(t, dyn, flux.Kustomizations[0], ns, "ready", `{"metadata":{"annotations":{"`+flux.AnnotationRequestedAt+`":"token-1"}}}`)
	waitUnit("a reconcile request", func(u *model.Unit) bool { return u.Queued && u.Flux.RequestedAt == "token-1" })
	patchStatus(t, dyn, flux.Kustomizations[0], ns, "ready", `{"lastHandledReconcileAt":"token-1"}`, true)
	waitUnit("the request handled", func(u *model.Unit) bool { return !u.Queued && u.Run == model.Idle && u.Flux.LastHandledAt == "token-1" })
	patch(t, dyn, flux.Kustomizations[0], ns, "ready", `{"spec":{"suspend":true}}`)
	waitUnit("a suspend", func(u *model.Unit) bool { return u.Automation == model.Suspended })
}

// patch merges a change into an object, as a user's write would.
func patch(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name, body string) {
	t.Helper()
	if _, err := dyn.Resource(gvr).Namespace(ns).Patch(context.Background(), name, types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching %s: %v", name, err)
	}
}

func servesLegacyTerraform(t *testing.T, sets []testcluster.CRDSet) bool {
	legacy := terraformGVK
	legacy.Version = "v1alpha1"
	for _, s := range sets {
		if crd, err := s.CRD(legacy); err != nil {
			t.Fatal(err)
		} else if crd != nil {
			return true
		}
	}
	return false
}
