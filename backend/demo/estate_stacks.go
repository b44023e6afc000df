package demo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

const (
	infraRepo   = "https://github.com/acme/infrastructure.git"
	k8sRepo     = "https://github.com/acme/k8s-clusters.git"
	networkRepo = "https://github.com/acme/network-infra.git"
	finopsRepo  = "https://github.com/acme/finops.git"
	webRepo     = "https://github.com/acme/web.git"    // embedded (sources.go)
	chartsRepo  = "https://github.com/acme/charts.git" // embedded too

	infraNS         = "infra"
	platformInfraNS = "platform-infra"

	// The Pulumi scenario objects (namespace infra unless noted).
	stackLocked   = "network-prod"      // its state lock is held by a run that died
	stackWedged   = "dns-zones"         // currentUpdate names an Update that does not exist
	stackApproval = "edge-cdn"          // commit-pinned, a newer commit proposed
	stackPreview  = "analytics-preview" // spec.preview: true; previewed and applied for real (program.go)
	stackRunning  = "k8s-staging"       // namespace platform-infra: an update in progress
	stackStalled  = "cost-reports"      // namespace finance: Stalled after 3 failed updates

	costReportsFailure = "error: update failed\n    aws:s3:BucketV2 (exports):\n    error: creating S3 Bucket (acme-cost-reports-exports): BucketAlreadyExists: The requested bucket name is not available"
)

// stackDef describes one Stack of the estate.
type stackDef struct {
	namespace, name, project, env string
	repo, dir, branch, commit     string
	preview, resync               bool
	backend                       string // a DIY backend URL; "" is Pulumi Cloud
	outputs                       map[string]any
}

func (d *stackDef) stackName() string {
	if d.backend != "" {
		return "organization/" + d.project + "/" + d.env
	}
	return "acme/" + d.project + "/" + d.env
}

// stacks builds the Pulumi side of the estate: Stacks with their Workspaces
// and past Updates.
func (e *estate) stacks() {
	e.addStack(stackDef{namespace: infraNS, name: stackLocked, project: "network", env: "prod", repo: networkRepo, dir: "network", branch: "main",
		backend: e.diy.url(), outputs: map[string]any{"vpcId": "vpc-0c81f2a9e4d5b6a71", "natGatewayIps": strs("52.29.14.201", "52.29.88.17")}}, e.locked)
	e.addStack(stackDef{namespace: infraNS, name: stackWedged, project: "dns", env: "prod", repo: infraRepo, dir: "dns",
		commit: commit(infraRepo, "dns", "pinned"), outputs: map[string]any{"zoneId": "Z04417822O1FQHTGR8B3K"}}, e.wedged)
	e.addStack(stackDef{namespace: infraNS, name: stackApproval, project: "edge", env: "prod", repo: infraRepo, dir: "edge",
		commit: commit(infraRepo, "edge", "pinned"), outputs: map[string]any{"distributionId": "E2QWRUHAPOMQZL", "domain": "d111111abcdef8.cloudfront.net"}}, e.proposed)
	e.addStack(stackDef{namespace: infraNS, name: stackPreview, project: analyticsProject, env: analyticsStack, repo: infraRepo, dir: "analytics", branch: "main", preview: true,
		backend: e.diy.url()}, nil)
	e.addStack(stackDef{namespace: platformInfraNS, name: stackRunning, project: "k8s", env: "staging", repo: k8sRepo, dir: "clusters", branch: "main",
		outputs: map[string]any{"clusterName": "staging-eu-1", "kubeconfig": "[secret]"}}, e.updating)
	e.addStack(stackDef{namespace: platformInfraNS, name: "k8s-prod", project: "k8s", env: "prod", repo: k8sRepo, dir: "clusters", branch: "main",
		outputs: map[string]any{"clusterName": "prod-eu-1", "kubeconfig": "[secret]"}}, nil)
	e.addStack(stackDef{namespace: ReadOnlyNamespace, name: stackStalled, project: "cost-reports", env: "prod", repo: finopsRepo, dir: "cost-reports", branch: "main"}, e.stalled)
	e.addStack(stackDef{namespace: infraNS, name: "iam-baseline", project: "iam", env: "prod", repo: infraRepo, dir: "iam", commit: commit(infraRepo, "iam", "pinned"),
		outputs: map[string]any{"breakGlassRoleArn": "arn:aws:iam::318274619123:role/break-glass"}}, nil)
	e.addStack(stackDef{namespace: infraNS, name: "observability", project: "observability", env: "prod", repo: infraRepo, dir: "observability", branch: "main"}, nil)
	e.addStack(stackDef{namespace: infraNS, name: stackHung, project: "data-lake", env: "prod", repo: infraRepo, dir: "data-lake", branch: "main",
		outputs: map[string]any{"bucket": "acme-data-lake-prod", "glueDatabase": "lake_prod"}}, e.hung)
	e.addStack(stackDef{namespace: infraNS, name: "secrets-rotation", project: "secrets", env: "prod", repo: infraRepo, dir: "secrets", branch: "main", resync: true,
		outputs: map[string]any{"rotationLambda": "secrets-rotator-prod", "dbPassword": "[secret]"}}, nil)
	e.addStack(stackDef{namespace: infraNS, name: "search-cluster", project: "search", env: "prod", repo: infraRepo, dir: "search", commit: commit(infraRepo, "search", "pinned"),
		outputs: map[string]any{"endpoint": "vpc-search-prod-4kq2x.eu-central-1.es.amazonaws.com"}}, nil)
	e.stackPushes = []pushTarget{{infraRepo, "main", ""}, {k8sRepo, "main", ""}}
	e.pulumiOperator()
}

// pulumiOperator is the operator's Deployment, as its 2.x manifests make it.
func (e *estate) pulumiOperator() {
	const ns = "pulumi-kubernetes-operator"
	dep := e.object("apps/v1", "Deployment", ns, "controller-manager", nil, map[string]any{
		"spec": map[string]any{"replicas": int64(1), "template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "manager", "image": "pulumi/pulumi-kubernetes-operator:v2.0.0"}}}}},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1)},
	})
	dep["metadata"].(map[string]any)["labels"] = map[string]any{"app.kubernetes.io/name": "pulumi-kubernetes-operator", "control-plane": "controller-manager"}
	e.add(deploymentsGVR, dep)
}

// addStack builds a Stack that last ran a successful update at its commit,
// lets the scenario change it, and adds it with its Workspace and Updates.
func (e *estate) addStack(d stackDef, scenario func(obj map[string]any, d *stackDef)) {
	r := rng(d.namespace + "/" + d.name)
	c := d.commit
	if c == "" {
		var ok bool
		if c, ok = e.git.Head(d.repo, d.branch); !ok {
			c = commit(d.repo, d.branch, "head")
			e.git.Set(d.repo, d.branch, c)
		}
	}
	gen := int64(2 + r.IntN(12))
	lastAt := e.now.Add(-time.Duration(10+r.IntN(60*30)) * time.Minute)
	typ := "up"
	if d.preview {
		typ = "preview"
	}
	spec := map[string]any{
		"stack": d.stackName(), "projectRepo": d.repo, "repoDir": d.dir, "refresh": true,
		"serviceAccountName": "pulumi", "destroyOnFinalize": false,
	}
	if d.commit != "" {
		spec["commit"] = d.commit
	} else {
		spec["branch"], spec["resyncFrequencySeconds"] = "refs/heads/"+d.branch, int64(300)
	}
	if d.preview {
		spec["preview"] = true
	}
	if d.resync {
		spec["continueResyncOnCommitMatch"] = true
	}
	if d.backend != "" {
		spec["backend"] = d.backend
		spec["envRefs"] = map[string]any{"PULUMI_CONFIG_PASSPHRASE": map[string]any{"type": "Secret",
			"secret": map[string]any{"name": "pulumi-passphrase", "key": "passphrase"}}}
	} else {
		spec["envRefs"] = map[string]any{"PULUMI_ACCESS_TOKEN": map[string]any{"type": "Secret",
			"secret": map[string]any{"name": "pulumi-api-token", "key": "accessToken"}}}
	}
	lastName := fmt.Sprintf("%s-%x", d.name, lastAt.UnixMilli())
	last := map[string]any{
		"generation": gen, "name": lastName, "type": typ, "state": "succeeded",
		"lastAttemptedCommit": c, "lastSuccessfulCommit": c, "lastResyncTime": ts(lastAt), "failures": int64(0),
	}
	if d.backend == "" {
		last["permalink"] = fmt.Sprintf("https://app.pulumi.com/acme/%s/%s/updates/%d", d.project, d.env, 40+r.IntN(900))
	}
	outputs := d.outputs
	if outputs == nil {
		outputs = map[string]any{"version": version(r)}
	}
	status := map[string]any{
		"observedGeneration": gen,
		"lastUpdate":         last,
		"conditions":         []any{condition("Ready", "True", "ProcessingCompleted", "the stack has been processed and is up to date", lastAt)},
		"outputs":            outputs,
	}
	obj := map[string]any{
		"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": metadata(d.namespace, d.name, map[string]any{
			"uid": e.uid("Stack", d.namespace, d.name), "generation": gen, "creationTimestamp": e.ago(time.Duration(60+r.IntN(500)) * 24 * time.Hour),
			"finalizers": strs("finalizer.stack.pulumi.com"), "labels": map[string]any{"app.kubernetes.io/managed-by": "platform-team"},
		}),
		"spec":   spec,
		"status": status,
	}
	e.add(pulumiop.Updates, e.update(&d, lastName, typ, fmt.Sprintf("New commit detected: %q", c), lastAt, "", ""))
	if scenario != nil {
		scenario(obj, &d)
	}
	e.add(pulumiop.Stacks, obj)
	e.add(pulumiop.Workspaces, e.workspace(&d, c))
}

func condition(typ, status, reason, message string, since time.Time) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": ts(since)}
}

// update builds an Update as the operator leaves it: complete (with the
// failure's reason and message when failReason is set), or Progressing when
// ended is zero... see running.
func (e *estate) update(d *stackDef, name, typ, message string, ended time.Time, failReason, failMessage string) map[string]any {
	started := ended.Add(-time.Duration(40+rand.IntN(200)) * time.Second)
	conds := []any{
		condition("Progressing", "False", "Complete", "", ended),
		condition("Complete", "True", "Updated", "", ended),
		condition("Failed", "False", "UpdateSucceeded", "", ended),
	}
	statusMsg := message
	if failReason != "" {
		conds[2] = condition("Failed", "True", failReason, "", ended)
		statusMsg = failMessage
	}
	return e.updateObject(d, name, typ, message, map[string]any{
		"observedGeneration": int64(1), "startTime": ts(started), "endTime": ts(ended), "message": statusMsg, "conditions": conds,
	})
}

func (e *estate) updateObject(d *stackDef, name, typ, message string, status map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "auto.pulumi.com/v1alpha1", "kind": "Update",
		"metadata": metadata(d.namespace, name, map[string]any{
			"uid": e.uid("Update", d.namespace, name), "generation": int64(1), "creationTimestamp": status["startTime"],
			"labels": map[string]any{"pulumi.com/component": "stack", pulumiop.LabelStackName: d.name},
			"ownerReferences": []any{map[string]any{"apiVersion": "pulumi.com/v1", "kind": "Stack", "name": d.name,
				"uid": e.uid("Stack", d.namespace, d.name), "blockOwnerDeletion": true}},
		}),
		"spec":   map[string]any{"workspaceName": d.name, "stackName": d.stackName(), "type": typ, "message": message, "ttlAfterCompleted": "24h0m0s"},
		"status": status,
	}
}

func (e *estate) workspace(d *stackDef, c string) map[string]any {
	return map[string]any{
		"apiVersion": "auto.pulumi.com/v1alpha1", "kind": "Workspace",
		"metadata": metadata(d.namespace, d.name, map[string]any{
			"uid": e.uid("Workspace", d.namespace, d.name), "generation": int64(3), "creationTimestamp": e.ago(30 * 24 * time.Hour),
			"ownerReferences": []any{map[string]any{"apiVersion": "pulumi.com/v1", "kind": "Stack", "name": d.name,
				"uid": e.uid("Stack", d.namespace, d.name), "controller": true, "blockOwnerDeletion": true}},
		}),
		"spec": map[string]any{
			"serviceAccountName": "pulumi", "image": "pulumi/pulumi:3.274.1-nonroot", "securityProfile": "restricted",
			"git": map[string]any{"url": d.repo, "ref": c, "dir": d.dir},
		},
		"status": map[string]any{
			"observedGeneration": int64(3), "address": fmt.Sprintf("%s-workspace.%s:50051", d.name, d.namespace), "pulumiVersion": "3.274.1",
			"conditions": []any{condition("Ready", "True", "Succeeded", "", e.now.Add(-3*time.Hour))},
		},
	}
}

// locked: the last update failed on the state lock a dead run left behind;
// the operator retries with backoff and fails again while the lock is there.
func (e *estate) locked(obj map[string]any, d *stackDef) {
	st := obj["status"].(map[string]any)
	last := st["lastUpdate"].(map[string]any)
	prevCommit := last["lastSuccessfulCommit"].(string)
	head := e.git.Push(d.repo, d.branch, d.dir)
	at := e.now.Add(-5 * time.Second)
	name := fmt.Sprintf("%s-%x", d.name, at.UnixMilli())
	msg := "error: " + e.diy.lockMessage()
	last["name"], last["state"], last["message"], last["failures"] = name, "failed", msg, int64(1)
	last["lastAttemptedCommit"], last["lastSuccessfulCommit"], last["lastResyncTime"] = head, prevCommit, ts(at)
	st["conditions"] = []any{
		condition("Ready", "False", "NotReadyInProgress", "reconciliation is in progress", e.now.Add(-2*time.Minute)),
		condition("Reconciling", "True", "RetryingAfterFailure", "1 update failure(s)", at),
	}
	e.add(pulumiop.Updates, e.update(d, name, "up", fmt.Sprintf("Backoff time elapsed: %v", 10*time.Second), at, "Unknown", msg))
}

// wedged: the operator recorded currentUpdate but the Update is gone (or
// was never created): the Stack waits for it for ever.
func (e *estate) wedged(obj map[string]any, d *stackDef) {
	meta := obj["metadata"].(map[string]any)
	gen := meta["generation"].(int64) + 1
	meta["generation"] = gen
	newCommit := commit(d.repo, d.dir, "pinned-next")
	obj["spec"].(map[string]any)["commit"] = newCommit
	since := e.now.Add(-6 * time.Minute)
	st := obj["status"].(map[string]any)
	st["observedGeneration"] = gen
	st["currentUpdate"] = map[string]any{"name": fmt.Sprintf("%s-%x", d.name, since.UnixMilli()), "generation": gen, "reconcileRequest": "", "commit": newCommit}
	st["conditions"] = []any{
		condition("Ready", "False", "NotReadyInProgress", "reconciliation is in progress", since),
		condition("Reconciling", "True", "StackProcessing", "stack is being processed", since),
	}
}

// proposed: a newer commit waits for approval on a commit-pinned Stack.
func (e *estate) proposed(obj map[string]any, d *stackDef) {
	meta := obj["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{pulumiop.AnnotationProposedCommit: commit(d.repo, d.dir, "proposed")}
}

// updating: an update started a moment ago and is running.
func (e *estate) updating(obj map[string]any, d *stackDef) {
	head := e.git.Push(d.repo, d.branch, d.dir)
	since := e.now.Add(-2 * time.Second)
	name := fmt.Sprintf("%s-%x", d.name, since.UnixMilli())
	st := obj["status"].(map[string]any)
	gen := obj["metadata"].(map[string]any)["generation"]
	st["currentUpdate"] = map[string]any{"name": name, "generation": gen, "reconcileRequest": "", "commit": head}
	st["conditions"] = []any{
		condition("Ready", "False", "NotReadyInProgress", "reconciliation is in progress", since),
		condition("Reconciling", "True", "StackProcessing", "stack is being processed", since),
	}
	e.add(pulumiop.Updates, e.updateObject(d, name, "up", fmt.Sprintf("New commit detected: %q", head), map[string]any{
		"observedGeneration": int64(1), "startTime": ts(since),
		"conditions": []any{
			condition("Progressing", "True", "Progressing", "", since),
			condition("Failed", "False", "Progressing", "", since),
			condition("Complete", "False", "Progressing", "", since),
		},
	}))
}

// stalled: three failed updates at this generation; the operator stopped.
func (e *estate) stalled(obj map[string]any, d *stackDef) {
	st := obj["status"].(map[string]any)
	last := st["lastUpdate"].(map[string]any)
	prevCommit := last["lastSuccessfulCommit"].(string)
	head := e.git.Push(d.repo, d.branch, d.dir)
	at := e.now.Add(-17 * time.Minute)
	name := fmt.Sprintf("%s-%x", d.name, at.UnixMilli())
	last["name"], last["state"], last["message"], last["failures"] = name, "failed", costReportsFailure, int64(3)
	last["lastAttemptedCommit"], last["lastSuccessfulCommit"], last["lastResyncTime"] = head, prevCommit, ts(at)
	delete(last, "permalink")
	st["conditions"] = []any{
		condition("Ready", "False", "NotReadyStalled", "reconciliation is stalled", at),
		condition("Stalled", "True", "UpdateFailed", "up failed 3 times; not retrying until the spec or source changes", at),
	}
	e.add(pulumiop.Updates, e.update(d, name, "up", fmt.Sprintf("Backoff time elapsed: %v", 90*time.Second), at, "UpdateFailed", costReportsFailure))
}
