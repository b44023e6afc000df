package demo

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// Scenario is one situation the demo stages from the start.
type Scenario struct {
	Unit string // as the command line names it: <engine>/<namespace>/<name>
	What string
}

// Scenarios lists what to look at in the demo.
var Scenarios = []Scenario{
	{"argocd/argocd/" + appStuck, "a sync Running for 25 minutes that will never finish: stuck past the threshold; terminate it"},
	{"argocd/argocd/" + appBlocked, "a manual sync held by the payments project's quarter-end deny window"},
	{"argocd/argocd/" + appBlockedAuto, "drifted, auto-sync held by the same deny window"},
	{"argocd/" + paymentsNS + "/" + appFailing, "every sync fails (an invalid Deployment); auto-sync will not retry the revision"},
	{"argocd/argocd/" + appPrune, "a sync waiting for prune confirmation of two resources"},
	{"argocd/argocd/" + appSelfHeal, "a live resource edited by hand; self-heal reverts it within seconds"},
	{"argocd/argocd/" + appRunning, "an automated sync in progress, finishing shortly"},
	{"argocd/argocd/" + appAwaiting, "a new commit; manual sync policy, waiting for someone to sync"},
	{"argocd/" + ReadOnlyNamespace + "/" + appReadOnly, "drifted, but the demo user may not write in namespace " + ReadOnlyNamespace},
	{"argocd/argocd/" + appPaused, "auto-sync paused by driftdeck during an incident, with who, why and until when"},
	{"argocd/argocd/" + appZombie, "operationState Running with no operation: a zombie only a new sync clears"},
	{"argocd/argocd/" + appRoot, "an app of apps: its children revert edits made to them"},
	{"pulumi/" + infraNS + "/" + stackLocked, "updates fail on a state lock left by a run that died; break the lock to recover"},
	{"pulumi/" + infraNS + "/" + stackWedged, "currentUpdate names an Update that does not exist: wedged"},
	{"pulumi/" + infraNS + "/" + stackApproval, "pinned to a commit; a newer commit waits for approval"},
	{"pulumi/" + infraNS + "/" + stackPreview, "spec.preview: the operator only previews; driftdeck previews it for real with the program the demo ships (needs the pulumi CLI) and applies exactly the approved plan"},
	{"pulumi/" + platformInfraNS + "/" + stackRunning, "an update in progress"},
	{"pulumi/" + ReadOnlyNamespace + "/" + stackStalled, "Stalled after three failed updates"},
	{"kustomization/" + fluxNS + "/" + ksReconciling, "applying a new revision now (Reconciling)"},
	{"kustomization/" + fluxNS + "/" + ksSlow, "Reconciling for 25 minutes (health checks never pass): stuck past the threshold"},
	{"kustomization/" + fluxNS + "/" + ksStalled, "Stalled on an invalid health check expression: not retried until the spec changes"},
	{"kustomization/" + webNS + "/" + ksFailing, "the build fails on the same revision for 40 minutes: stuck past the threshold"},
	{"kustomization/" + webNS + "/" + ksDependency, "waits for web-frontend, which is not ready"},
	{"kustomization/" + webNS + "/" + ksSourceFailed, "its GitRepository cannot be fetched (authentication failed)"},
	{"kustomization/" + fluxNS + "/" + ksSuspended, "suspended"},
	{"helmrelease/" + fluxNS + "/" + hrHistory, "three releases in its history"},
	{"helmrelease/" + monitoringNS + "/" + hrPaused, "suspended by a driftdeck pause during an incident: paused, with who, why and until when (monitoring-crds is suspended by somebody else)"},
	{"helmrelease/" + monitoringNS + "/" + hrExhausted, "upgrade retries exhausted: helm-controller waits for a spec change or a reset"},
	{"helmrelease/" + monitoringNS + "/" + hrRetrying, "an upgrade failed, retries left"},
	{"terraform/" + fluxNS + "/" + tfAwaiting, "a plan waits for approval by its full id; approving it applies it"},
	{"terraform/" + fluxNS + "/" + tfStale, "its pending plan was made from an older spec: stale"},
	{"terraform/" + fluxNS + "/" + tfPlanOnly, "plan only: plans are never applied"},
	{"terraform/" + fluxNS + "/" + tfDrift, "drift detection only, and drift found"},
	{"terraform/" + fluxNS + "/" + tfLocked, "a state lock held by a runner that died"},
	{"terraform/" + fluxNS + "/" + tfSuspended, "suspended"},
	{"terraform/" + fluxNS + "/" + tfExhausted, "remediation retries used up: Stalled"},
}

// events seeds the recent Events of the scenario objects.
func (e *estate) events() {
	add := func(kind, apiVersion, namespace, name, typ, reason, component, message string, ago time.Duration) {
		at := ts(e.now.Add(-ago))
		e.add(eventsGVR, map[string]any{
			"apiVersion": "v1", "kind": "Event",
			"metadata": metadata(namespace, fmt.Sprintf("%s.%x", name, e.now.Add(-ago).UnixNano()), map[string]any{"creationTimestamp": at}),
			"involvedObject": map[string]any{
				"apiVersion": apiVersion, "kind": kind, "namespace": namespace, "name": name, "uid": e.uid(kind, namespace, name),
			},
			"type": typ, "reason": reason, "message": message,
			"source":         map[string]any{"component": component},
			"firstTimestamp": at, "lastTimestamp": at, "count": int64(1), "reportingComponent": component,
		})
	}
	const argo, operator = "argocd-application-controller", "pulumi-kubernetes-operator"
	add("Application", "argoproj.io/v1alpha1", paymentsNS, appFailing, "Warning", "OperationCompleted", argo,
		"Sync operation to "+e.revisionOf(paymentsNS, appFailing)+" failed: "+failingMessage, 3*time.Minute)
	add("Application", "argoproj.io/v1alpha1", paymentsNS, appFailing, "Normal", "OperationStarted", argo,
		"Initiated automated sync to '"+e.revisionOf(paymentsNS, appFailing)+"'", 3*time.Minute+40*time.Second)
	add("Application", "argoproj.io/v1alpha1", "argocd", appPaused, "Normal", "DriftdeckPause", "driftdeck",
		"sre-lead@example.com paused auto-sync of argocd/argocd/"+appPaused+": INC-4412: policy rollout blocks deploys, paused while we investigate", 40*time.Minute)
	add("Stack", "pulumi.com/v1", infraNS, stackLocked, "Warning", "StackUpdateFailure", operator,
		"Failed to update stack: error: "+e.diy.lockMessage(), 5*time.Second)
	add("Stack", "pulumi.com/v1", ReadOnlyNamespace, stackStalled, "Warning", "StackUpdateFailure", operator,
		"Failed to update stack: "+costReportsFailure, 17*time.Minute)
	add("Kustomization", "kustomize.toolkit.fluxcd.io/v1", webNS, ksFailing, "Warning", "BuildFailed", "kustomize-controller", frontendBuildFail, 90*time.Second)
	add("HelmRelease", "helm.toolkit.fluxcd.io/v2", monitoringNS, hrPaused, "Normal", "DriftdeckPause", "driftdeck",
		"sre-lead@example.com suspended helmrelease/"+monitoringNS+"/"+hrPaused+": INC-4413: dashboards overload Prometheus, upgrades held until the fix ships", 25*time.Minute)
	add("HelmRelease", "helm.toolkit.fluxcd.io/v2", monitoringNS, hrExhausted, "Warning", "UpgradeFailed", "helm-controller",
		"Helm upgrade failed for release monitoring/kube-prometheus-stack with chart kube-prometheus-stack@65.1.0: spec.selector: Invalid value: field is immutable", 31*time.Minute)
	add("Terraform", "infra.contrib.fluxcd.io/v1alpha2", fluxNS, tfAwaiting, "Normal", "TerraformPlannedWithChanges", "tofu-controller",
		"Plan generated: 2 to add, 1 to change, 1 to destroy; set approvePlan: "+e.pendingPlanOf(tfAwaiting)+" to apply it", 9*time.Minute)
	add("Stack", "pulumi.com/v1", infraNS, stackWedged, "Normal", "StackUpdateDetected", operator,
		"New stack generation: "+fmt.Sprint(e.generationOf(infraNS, stackWedged)), 6*time.Minute)
}

// revisionOf reads the sync revision of a seeded app.
func (e *estate) revisionOf(namespace, name string) string {
	for _, o := range e.objects[argocd.Applications] {
		if o.GetNamespace() == namespace && o.GetName() == name {
			rev, _, _ := unstructured.NestedString(o.Object, "status", "sync", "revision")
			return rev
		}
	}
	return ""
}

func (e *estate) pendingPlanOf(name string) string {
	for _, o := range e.objects[tofu.Terraforms[0]] {
		if o.GetNamespace() == fluxNS && o.GetName() == name {
			id, _, _ := unstructured.NestedString(o.Object, "status", "plan", "pending")
			return id
		}
	}
	return ""
}

func (e *estate) generationOf(namespace, name string) int64 {
	for _, o := range e.objects[pulumiop.Stacks] {
		if o.GetNamespace() == namespace && o.GetName() == name {
			return o.GetGeneration()
		}
	}
	return 0
}
