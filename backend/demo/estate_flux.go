package demo

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// The sources Flux objects read (source-controller's kinds).
var (
	gitRepositories  = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}
	helmRepositories = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "helmrepositories"}
)

const (
	fluxNS       = "flux-system"
	webNS        = "team-web"
	monitoringNS = "monitoring"

	// The Flux scenario objects.
	ksReconciling  = "apps"            // flux-system: applying a new revision now
	ksSlow         = "ingress-nginx"   // flux-system: waiting on its health checks for 25 minutes
	ksStalled      = "tenants"         // flux-system: Stalled on an invalid health check expression
	ksFailing      = "web-frontend"    // team-web: build fails on the same revision for 40 minutes
	ksDependency   = "web-backend"     // team-web: waits for web-frontend
	ksSourceFailed = "web-config"      // team-web: its GitRepository cannot be fetched
	ksSuspended    = "monitoring-crds" // flux-system: spec.suspend
	hrPaused       = "grafana"         // monitoring: suspended by a driftdeck pause, with the record
	hrExhausted    = "kube-prometheus-stack"
	hrRetrying     = "loki"
	hrHistory      = "cert-manager"

	// The Terraform scenario objects (all in flux-system).
	tfAwaiting  = "eks-cluster" // a plan waits for approval: approving it applies it
	tfStale     = "vpc-network" // its pending plan was made from an older spec
	tfPlanOnly  = "dns-records"
	tfDrift     = "iam-roles" // drift detection only, drift found
	tfLocked    = "rds-postgres"
	tfSuspended = "s3-buckets"
	tfExhausted = "msk-kafka" // remediation retries used up

	// A state lock id as tofu's backends write them.
	tfLockID = "f2ab685b-f84d-ac0b-a125-378a22877e8d"
	// What the build of the embedded web repository's head says (sources.go).
	frontendBuildFail = "kustomize build failed: accumulating resources: accumulation err='accumulating resources from './canary': " +
		"evalsymlink failure on '/tmp/kustomization-3318427741/apps/web-frontend/overlays/prod/canary' : lstat /tmp/kustomization-3318427741/apps/web-frontend/overlays/prod/canary: no such file or directory': " +
		"must build at directory: not a valid directory"
)

// tfOutputs are the outputs the applied modules declare (their values are
// in each Terraform's outputs Secret, which driftdeck does not read).
var tfOutputs = map[string][]any{
	tfAwaiting: {"cluster_endpoint", "cluster_certificate_authority_data", "kubeconfig"},
	tfStale:    {"vpc_id", "private_subnet_ids", "nat_gateway_ips"},
	tfLocked:   {"endpoint", "master_password"},
}

// gitRevision is a Flux revision of a branch: main@sha1:<commit>.
func gitRevision(repo, branch, words string) string {
	return branch + "@sha1:" + commit(repo, branch, words)
}

// planID is tofu-controller's name of a plan of a revision: the branch and
// the first ten hex digits of the commit.
func planID(revision string) string {
	return "plan-main-" + revision[len("main@sha1:"):len("main@sha1:")+10]
}

// flux builds the Flux and tofu-controller side of the estate: sources,
// Kustomizations, HelmReleases and Terraforms, in every state the adapters
// know.
func (e *estate) flux() {
	e.fluxSources()
	e.kustomizations()
	e.fluxWorkloads()
	e.promWorkloads()
	e.helmReleases()
	e.webCache()
	e.terraforms()
}

func (e *estate) fluxObject(gvr schema.GroupVersionResource, kind, namespace, name string, generation int64, ann map[string]any, spec, status map[string]any) {
	extra := map[string]any{
		"uid": e.uid(kind, namespace, name), "generation": generation, "creationTimestamp": e.ago(90 * 24 * time.Hour),
		"finalizers": strs("finalizers.fluxcd.io"),
	}
	if ann != nil {
		extra["annotations"] = ann
	}
	status["observedGeneration"] = generation
	e.add(gvr, map[string]any{
		"apiVersion": gvr.Group + "/" + gvr.Version, "kind": kind,
		"metadata": metadata(namespace, name, extra), "spec": spec, "status": status,
	})
}

func conds(cs ...map[string]any) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c
	}
	return out
}

func (e *estate) fluxSources() {
	ready := func(namespace, name, url, revision string) {
		e.fluxObject(gitRepositories, "GitRepository", namespace, name, 1, nil,
			map[string]any{"interval": "1m", "url": url, "ref": map[string]any{"branch": "main"}},
			map[string]any{
				"artifact":   map[string]any{"revision": revision, "lastUpdateTime": e.ago(20 * time.Minute)},
				"conditions": conds(condition("Ready", "True", "Succeeded", "stored artifact for revision '"+revision+"'", e.now.Add(-20*time.Minute))),
			})
	}
	ready(fluxNS, "flux-system", k8sRepo, gitRevision(k8sRepo, "main", "flux"))
	ready(fluxNS, "infra-modules", infraRepo, gitRevision(infraRepo, "main", "terraform"))
	ready(webNS, "web", webRepo, "main@sha1:"+webHeadCommit)
	e.fluxObject(gitRepositories, "GitRepository", webNS, ksSourceFailed, 2, nil,
		map[string]any{"interval": "1m", "url": "ssh://git@github.com/acme/web-config.git", "ref": map[string]any{"branch": "main"},
			"secretRef": map[string]any{"name": "web-config-deploy-key"}},
		map[string]any{"conditions": conds(
			condition("Ready", "False", "AuthenticationFailed", "failed to checkout and determine revision: unable to clone 'ssh://git@github.com/acme/web-config.git': ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported methods remain", e.now.Add(-7*time.Minute)),
			condition("FetchFailed", "True", "AuthenticationFailed", "ssh: unable to authenticate", e.now.Add(-7*time.Minute)),
		)})
	for _, r := range []struct{ name, url string }{{"jetstack", "https://charts.jetstack.io"}, {"prometheus-community", "https://prometheus-community.github.io/helm-charts"}, {"grafana", "https://grafana.github.io/helm-charts"}} {
		e.fluxObject(helmRepositories, "HelmRepository", fluxNS, r.name, 1, nil,
			map[string]any{"interval": "1h", "url": r.url},
			map[string]any{"conditions": conds(condition("Ready", "True", "Succeeded", "stored artifact: revision 'sha256:"+commit(r.url)[:16]+"'", e.now.Add(-50*time.Minute)))})
	}
}

// ksDef describes one Kustomization: its revisions and conditions.
type ksDef struct {
	namespace, name, source, path string
	dependsOn                     []string
	attempted, applied            string
	suspend                       bool
	conditions                    []any
	handled                       string // a reconcile request already handled
	timeout                       string // spec.timeout; "" is 5m
}

func (e *estate) kustomizations() {
	head := gitRevision(k8sRepo, "main", "flux")
	older := gitRevision(k8sRepo, "main", "flux-previous")
	ok := func(since time.Duration) []any {
		return conds(condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+head, e.now.Add(-since)))
	}
	webHead, webOld := "main@sha1:"+webHeadCommit, "main@sha1:"+webPreviousCommit
	defs := []ksDef{
		{namespace: fluxNS, name: "flux-system", source: "flux-system", path: "./clusters/prod", attempted: head, applied: head, conditions: ok(18 * time.Minute),
			handled: e.ago(2 * time.Hour)},
		{namespace: fluxNS, name: "infra-controllers", source: "flux-system", path: "./infrastructure/controllers", attempted: head, applied: head, conditions: ok(17 * time.Minute)},
		{namespace: fluxNS, name: "infra-configs", source: "flux-system", path: "./infrastructure/configs", dependsOn: []string{"infra-controllers"},
			attempted: head, applied: head, conditions: ok(16 * time.Minute)},
		{namespace: fluxNS, name: ksReconciling, source: "flux-system", path: "./apps/prod", dependsOn: []string{"infra-configs"}, attempted: older, applied: older,
			conditions: conds(
				condition("Reconciling", "True", "Progressing", "Building manifests for revision "+head+" with a timeout of 5m0s", e.now.Add(-20*time.Second)),
				condition("Ready", "Unknown", "Progressing", "Reconciliation in progress", e.now.Add(-20*time.Second)),
			)},
		// Reconciling, not failing, for longer than the stuck threshold: the
		// health checks of a rollout that never becomes ready (wait: true).
		{namespace: fluxNS, name: ksSlow, source: "flux-system", path: "./infrastructure/ingress-nginx", attempted: older, applied: older, timeout: "30m",
			conditions: conds(
				condition("Reconciling", "True", "Progressing", "Running health checks for revision "+head+" with a timeout of 30m0s", e.now.Add(-25*time.Minute)),
				condition("Ready", "Unknown", "Progressing", "Reconciliation in progress", e.now.Add(-25*time.Minute)),
			)},
		{namespace: fluxNS, name: ksStalled, source: "flux-system", path: "./tenants", attempted: head, applied: older,
			conditions: conds(
				condition("Stalled", "True", "InvalidCELExpression", "failed to parse the health check expressions of apps/Deployment: undeclared reference to 'statuss'", e.now.Add(-55*time.Minute)),
				condition("Ready", "False", "InvalidCELExpression", "failed to parse the health check expressions of apps/Deployment: undeclared reference to 'statuss'", e.now.Add(-55*time.Minute)),
			)},
		{namespace: fluxNS, name: ksSuspended, source: "flux-system", path: "./infrastructure/monitoring-crds", suspend: true, attempted: older, applied: older,
			conditions: conds(condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+older, e.now.Add(-3*24*time.Hour)))},
		{namespace: webNS, name: ksFailing, source: "web", path: "./apps/web-frontend/overlays/prod", attempted: webHead, applied: webOld,
			conditions: conds(
				condition("Reconciling", "True", flux.ReasonProgressingWithRetry, "Detecting drift for revision "+webHead+" with a timeout of 2m0s", e.now.Add(-40*time.Minute)),
				condition("Ready", "False", "BuildFailed", frontendBuildFail, e.now.Add(-40*time.Minute)),
			)},
		{namespace: webNS, name: ksDependency, source: "web", path: "./apps/web-backend", dependsOn: []string{ksFailing}, attempted: webOld, applied: webOld,
			conditions: conds(condition("Ready", "False", flux.ReasonDependencyNotReady, "dependency '"+webNS+"/"+ksFailing+"' is not ready", e.now.Add(-4*time.Minute)))},
		{namespace: webNS, name: ksSourceFailed, source: ksSourceFailed, path: "./prod", attempted: webOld, applied: webOld,
			conditions: conds(condition("Ready", "False", flux.ReasonArtifactFailed, "Source artifact not found, retrying in 30s", e.now.Add(-6*time.Minute)))},
	}
	for _, d := range defs {
		timeout := d.timeout
		if timeout == "" {
			timeout = "5m"
		}
		spec := map[string]any{
			"interval": "10m", "path": d.path, "prune": true, "timeout": timeout,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": d.source},
		}
		if d.timeout != "" {
			spec["wait"] = true
		}
		if d.suspend {
			spec["suspend"] = true
		}
		var deps []any
		for _, dep := range d.dependsOn {
			deps = append(deps, map[string]any{"name": dep})
		}
		if deps != nil {
			spec["dependsOn"] = deps
		}
		status := map[string]any{"lastAttemptedRevision": d.attempted, "lastAppliedRevision": d.applied, "conditions": d.conditions}
		var ann map[string]any
		if d.handled != "" {
			ann = map[string]any{flux.AnnotationRequestedAt: d.handled}
			status["lastHandledReconcileAt"] = d.handled
		}
		e.fluxObject(flux.Kustomizations[0], "Kustomization", d.namespace, d.name, int64(2+len(d.name)%5), ann, spec, status)
		if d.suspend {
			e.suspendedByFlux(flux.Kustomizations[0], 3*24*time.Hour)
		}
	}
}

// suspendedByFlux records on the object last added of gvr that `flux
// suspend` wrote its spec.suspend, ago: the field manager and time an API
// server keeps in managedFields, which resume names.
func (e *estate) suspendedByFlux(gvr schema.GroupVersionResource, ago time.Duration) {
	objs := e.objects[gvr]
	md := objs[len(objs)-1].Object["metadata"].(map[string]any)
	md["managedFields"] = []any{map[string]any{
		"manager": "flux-client-side-apply", "operation": "Update", "apiVersion": gvr.GroupVersion().String(),
		"time": e.ago(ago), "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:spec": map[string]any{"f:suspend": map[string]any{}}},
	}}
}

// hrDef describes one HelmRelease.
type hrDef struct {
	namespace, name, chart, repo string
	attempted                    string
	history                      []any
	conditions                   []any
	status                       map[string]any // more status fields
	drift                        string         // spec.driftDetection.mode
	paused                       bool           // suspended by a driftdeck pause
}

func (e *estate) release(version int64, status, chart, chartVersion, appVersion string, ago time.Duration) map[string]any {
	return map[string]any{
		"name": chart, "namespace": "", "version": version, "status": status,
		"chartName": chart, "chartVersion": chartVersion, "appVersion": appVersion,
		"firstDeployed": e.ago(200 * 24 * time.Hour), "lastDeployed": e.ago(ago),
		"digest": "sha256:" + commit(chart, chartVersion)[:32], "configDigest": "sha256:" + commit(chart, "values")[:32],
	}
}

func (e *estate) helmReleases() {
	released := func(rel string, since time.Duration) []any {
		msg := "Helm upgrade succeeded for release " + rel
		return conds(condition("Ready", "True", "UpgradeSucceeded", msg, e.now.Add(-since)), condition("Released", "True", "UpgradeSucceeded", msg, e.now.Add(-since)))
	}
	promFail := "Helm upgrade failed for release monitoring/kube-prometheus-stack with chart kube-prometheus-stack@65.1.0: cannot patch \"kube-prometheus-stack-grafana\" with kind Deployment: Deployment.apps \"kube-prometheus-stack-grafana\" is invalid: spec.selector: Invalid value: field is immutable"
	lokiFail := "Helm upgrade failed for release monitoring/loki with chart loki@6.18.0: context deadline exceeded"
	defs := []hrDef{
		{namespace: fluxNS, name: hrHistory, chart: "cert-manager", repo: "jetstack", attempted: "v1.16.1",
			history: []any{
				e.release(3, "deployed", "cert-manager", "v1.16.1", "v1.16.1", 12*24*time.Hour),
				e.release(2, "superseded", "cert-manager", "v1.15.3", "v1.15.3", 60*24*time.Hour),
				e.release(1, "superseded", "cert-manager", "v1.14.4", "v1.14.4", 200*24*time.Hour),
			},
			conditions: released("cert-manager/cert-manager.v3 with chart cert-manager@v1.16.1", 12*24*time.Hour), drift: "enabled"},
		{namespace: monitoringNS, name: hrPaused, chart: "grafana", repo: "grafana", attempted: "8.5.2",
			history:    []any{e.release(7, "deployed", "grafana", "8.5.2", "11.2.2", 5*24*time.Hour)},
			conditions: released("monitoring/grafana.v7 with chart grafana@8.5.2", 5*24*time.Hour), drift: "warn", paused: true},
		{namespace: monitoringNS, name: hrExhausted, chart: "kube-prometheus-stack", repo: "prometheus-community", attempted: "65.1.0",
			history: []any{
				e.release(9, "failed", "kube-prometheus-stack", "65.1.0", "v0.77.1", 48*time.Minute),
				e.release(8, "deployed", "kube-prometheus-stack", "62.7.0", "v0.76.1", 21*24*time.Hour),
			},
			conditions: conds(
				condition("Stalled", "True", flux.ReasonRetriesExceeded, "Failed to upgrade after 3 attempt(s)", e.now.Add(-31*time.Minute)),
				condition("Ready", "False", "UpgradeFailed", promFail, e.now.Add(-31*time.Minute)),
				condition("Released", "False", "UpgradeFailed", promFail, e.now.Add(-31*time.Minute)),
			),
			status: map[string]any{"failures": int64(4), "upgradeFailures": int64(3), "lastAttemptedReleaseAction": "upgrade"}},
		{namespace: monitoringNS, name: hrRetrying, chart: "loki", repo: "grafana", attempted: "6.18.0",
			history: []any{
				e.release(4, "failed", "loki", "6.18.0", "3.2.0", 2*time.Minute),
				e.release(3, "deployed", "loki", "6.16.0", "3.1.1", 9*24*time.Hour),
			},
			conditions: conds(
				condition("Reconciling", "True", flux.ReasonProgressingWithRetry, "Retrying upgrade", e.now.Add(-2*time.Minute)),
				condition("Ready", "False", "UpgradeFailed", lokiFail, e.now.Add(-2*time.Minute)),
				condition("Released", "False", "UpgradeFailed", lokiFail, e.now.Add(-2*time.Minute)),
			),
			status: map[string]any{"failures": int64(1), "upgradeFailures": int64(1), "lastAttemptedReleaseAction": "upgrade"}},
	}
	for _, d := range defs {
		spec := map[string]any{
			"interval": "30m", "releaseName": d.name,
			"chart": map[string]any{"spec": map[string]any{"chart": d.chart, "version": d.attempted,
				"sourceRef": map[string]any{"kind": "HelmRepository", "name": d.repo, "namespace": fluxNS}}},
			"install": map[string]any{"remediation": map[string]any{"retries": int64(3)}},
			"upgrade": map[string]any{"remediation": map[string]any{"retries": int64(3), "remediateLastFailure": true}},
		}
		if d.drift != "" {
			spec["driftDetection"] = map[string]any{"mode": d.drift}
		}
		status := map[string]any{"lastAttemptedRevision": d.attempted, "history": d.history, "conditions": d.conditions,
			"helmChart": fluxNS + "/" + d.namespace + "-" + d.name}
		for k, v := range d.status {
			status[k] = v
		}
		var ann map[string]any
		if d.paused {
			spec["suspend"] = true
			ann = e.fluxPause()
		}
		e.fluxObject(flux.HelmReleases[0], "HelmRelease", d.namespace, d.name, 4, ann, spec, status)
	}
}

// fluxPause is the record driftdeck's pause of a Flux object writes beside
// spec.suspend: true (which was unset before it).
func (e *estate) fluxPause() map[string]any {
	return map[string]any{
		pause.AnnotationBy:       "sre-lead@example.com",
		pause.AnnotationReason:   "INC-4413: dashboards overload Prometheus, upgrades held until the fix ships",
		pause.AnnotationAt:       e.ago(25 * time.Minute),
		pause.AnnotationUntil:    ts(e.now.Add(95 * time.Minute)),
		pause.AnnotationMode:     pause.ModeSuspend,
		pause.AnnotationPrevious: "null",
	}
}

// tfDef describes one Terraform.
type tfDef struct {
	name, path string
	generation int64
	spec       map[string]any
	status     map[string]any
}

func (e *estate) terraforms() {
	head := gitRevision(infraRepo, "main", "terraform")
	older := gitRevision(infraRepo, "main", "terraform-previous")
	planned := func(gen int64, msg string) map[string]any {
		return map[string]any{
			"lastAttemptedRevision": head, "lastAppliedRevision": older, "lastPlannedRevision": head, "lastPlannedGeneration": gen,
			"lastPlanAt": e.ago(9 * time.Minute), "plan": map[string]any{"pending": planID(head)},
			"conditions": conds(
				condition("Plan", "True", tofu.ReasonPlannedWithChanges, msg, e.now.Add(-9*time.Minute)),
				condition("Ready", "Unknown", tofu.ReasonPlannedWithChanges, msg, e.now.Add(-9*time.Minute)),
			),
		}
	}
	appliedOK := func() map[string]any {
		return map[string]any{
			"lastAttemptedRevision": head, "lastAppliedRevision": head, "lastPlannedRevision": head, "lastPlannedGeneration": int64(3),
			"lastPlanAt": e.ago(25 * time.Minute), "plan": map[string]any{"lastApplied": planID(head)},
			"conditions": conds(condition("Ready", "True", "TerraformOutputsWritten", "Outputs written: "+head, e.now.Add(-25*time.Minute))),
		}
	}
	stale := planned(5, "Plan generated: 3 to add, 1 to change, 0 to destroy")
	planOnly := planned(2, "Plan generated: 2 to add, 0 to change, 0 to destroy")
	drift := appliedOK()
	drift["lastDriftDetectedAt"] = e.ago(3 * time.Minute)
	drift["lastPlannedGeneration"] = int64(2)
	drift["conditions"] = conds(condition("Ready", "False", tofu.ReasonDriftDetected, iamRolesDrift, e.now.Add(-3*time.Minute)))
	locked := appliedOK()
	locked["lastAttemptedRevision"], locked["lastAppliedRevision"] = head, older
	locked["lock"] = map[string]any{"pending": tfLockID, "lastApplied": ""}
	lockMsg := "Error acquiring the state lock: ConditionalCheckFailedException: The conditional request failed; Lock Info: ID: " + tfLockID + ", Path: acme-tfstate/rds-postgres/terraform.tfstate, Operation: OperationTypeApply, Who: runner@rds-postgres-tf-runner, Created: " + e.ago(3*time.Hour)
	locked["conditions"] = conds(
		condition("StateLocked", "True", tofu.ReasonLockHeld, lockMsg, e.now.Add(-35*time.Minute)),
		condition("Ready", "False", tofu.ReasonLockHeld, lockMsg, e.now.Add(-35*time.Minute)),
	)
	exhausted := appliedOK()
	exhausted["lastAppliedRevision"] = older
	exhausted["reconciliationFailures"] = int64(3)
	kafkaFail := "error running Apply: exit status 1\n\nError: creating MSK Cluster (events-prod): InvalidParameterException: The number of broker nodes must be a multiple of Availability Zones"
	exhausted["conditions"] = conds(
		condition("Stalled", "True", tofu.ReasonRetryLimitReached, "Resource reached maximum number of retries.", e.now.Add(-80*time.Minute)),
		condition("Ready", "False", "TFExecApplyFailed", kafkaFail, e.now.Add(-80*time.Minute)),
	)
	defs := []tfDef{
		{name: tfAwaiting, path: "./eks", generation: 4, spec: map[string]any{}, status: planned(4, "Plan generated: 2 to add, 1 to change, 1 to destroy")},
		{name: tfStale, path: "./vpc", generation: 6, spec: map[string]any{}, status: stale},
		{name: tfPlanOnly, path: "./dns", generation: 2, spec: map[string]any{"planOnly": true}, status: planOnly},
		{name: tfDrift, path: "./iam", generation: 2, spec: map[string]any{"approvePlan": tofu.ApproveDisable}, status: drift},
		{name: tfLocked, path: "./rds", generation: 3, spec: map[string]any{"approvePlan": tofu.ApproveAuto}, status: locked},
		{name: tfSuspended, path: "./s3", generation: 3, spec: map[string]any{"approvePlan": tofu.ApproveAuto, "suspend": true}, status: appliedOK()},
		{name: "cloudfront", path: "./cloudfront", generation: 3, spec: map[string]any{"approvePlan": tofu.ApproveAuto}, status: appliedOK()},
		{name: tfExhausted, path: "./msk", generation: 3, spec: map[string]any{"approvePlan": tofu.ApproveAuto, "remediation": map[string]any{"retries": int64(3)}}, status: exhausted},
	}
	for _, d := range defs {
		d.spec["interval"], d.spec["path"] = "10m", d.path
		d.spec["sourceRef"] = map[string]any{"kind": "GitRepository", "name": "infra-modules"}
		d.spec["storeReadablePlan"] = "human"
		d.spec["writeOutputsToSecret"] = map[string]any{"name": d.name + "-outputs"}
		if outputs := tfOutputs[d.name]; outputs != nil {
			d.status["availableOutputs"] = outputs
		}
		e.fluxObject(tofu.Terraforms[0], "Terraform", fluxNS, d.name, d.generation, nil, d.spec, d.status)
	}
	// The units with a pending plan have it stored in readable form.
	for name, text := range map[string]string{tfAwaiting: eksPlan, tfStale: vpcPlan, tfPlanOnly: dnsPlan} {
		e.readablePlan(fluxNS, name, planID(head), text)
	}
}
