package demo

import (
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/sim"
)

// The Argo CD scenario objects (all in namespace argocd unless noted).
const (
	appStuck       = "search-indexer"    // a sync Running for 25 minutes that never ends
	appBlocked     = "billing-ledger"    // a manual sync held by the quarter-end deny window
	appBlockedAuto = "billing-invoicer"  // auto-sync held by the same window
	appFailing     = "payments-api"      // namespace team-payments: every sync fails
	appPrune       = "legacy-reports"    // a sync waiting for prune confirmation
	appSelfHeal    = "checkout-web"      // a hand edit that self-heal reverts
	appRunning     = "catalog"           // an automated sync that finishes in seconds
	appAwaiting    = "kafka"             // OutOfSync, manual: waits for a sync
	appReadOnly    = "finance-reporting" // namespace finance: OutOfSync, no write permission
	appPaused      = "kyverno"           // automation paused by driftdeck, with the record
	appZombie      = "velero"            // phase Running with no operation
	appRoot        = "platform-root"     // app of apps
	appSetName     = "storefront-services"
	paymentsNS     = "team-payments"
	failingMessage = `one or more objects failed to apply, reason: Deployment.apps "payments-api" is invalid: spec.template.spec.containers[0].resources.requests: Invalid value: "4": must be less than or equal to cpu limit of 2`
	stuckMessage   = "waiting for healthy state of apps/StatefulSet/search-indexer"
)

var (
	platformApps   = []string{"external-dns", "prometheus", "loki", "tempo", "metrics-server", "sealed-secrets", "argo-rollouts", "node-local-dns", "cluster-autoscaler", appPaused, appZombie}
	storefrontApps = []string{appSelfHeal, "cart", appRunning, "search-api", "recommendations", "reviews", "inventory", "pricing", "shipping", "notifications", "frontend"}
)

// argo builds the Argo CD side of the estate.
func (e *estate) argo(t Timings) {
	freezeStart := e.now.Add(-45 * time.Minute).UTC()
	freeze := map[string]any{
		"kind": "deny", "schedule": fmt.Sprintf("%d %d * * *", freezeStart.Minute(), freezeStart.Hour()), "duration": "8h",
		"applications": strs("billing-*"), "manualSync": false, "timeZone": "UTC",
		"description": "quarter-end close: no billing changes",
	}
	maintenance := map[string]any{
		"kind": "allow", "schedule": "0 2 * * 6", "duration": "3h", "applications": strs("cluster-autoscaler"),
		"manualSync": true, "timeZone": "Europe/Berlin", "description": "node changes only in the Saturday maintenance window",
	}
	for _, p := range []map[string]any{
		e.project("default", "", nil),
		e.project("platform", "cluster add-ons, owned by the platform team", nil, maintenance),
		e.project("storefront", "customer-facing shop services", nil),
		e.project("payments", "payment processing and billing (PCI scope)", []string{paymentsNS}, freeze),
		e.project("data", "data platform", nil),
		e.project("finance", "finance reporting (read-only for on-call)", []string{ReadOnlyNamespace}),
	} {
		e.add(argocd.AppProjects, p)
	}

	e.platform()
	e.storefront(t)
	e.payments()
	e.data()
	e.finance()
	e.add(argocd.Applications, e.app(appDef{namespace: "argocd", name: "guestbook", project: "default",
		repo: "https://github.com/argoproj/argocd-example-apps.git", path: "guestbook", ref: "HEAD", policy: manual, web: true}))
}

func (e *estate) platform() {
	var children []any
	add := func(d appDef) {
		d.namespace, d.project = "argocd", "platform"
		if d.repo == "" && d.chart == "" {
			d.repo, d.path, d.ref = platformRepo, "clusters/prod-eu-1/"+d.name, "main"
		}
		d.annotations = map[string]any{argocd.AnnotationTrackingID: trackingID(appRoot, "argocd", d.name)}
		obj := e.app(d)
		children = append(children, map[string]any{"group": "argoproj.io", "version": "v1alpha1", "kind": "Application",
			"namespace": "argocd", "name": d.name, "status": "Synced"})
		switch d.name {
		case appPaused:
			e.pausedByDriftdeck(obj)
		case appZombie:
			e.zombie(obj)
		}
		e.add(argocd.Applications, obj)
		if d.chart == "" && d.policy.auto && d.name != "cluster-autoscaler" && d.name != appPaused {
			e.pushTargets = append(e.pushTargets, pushTarget{platformRepo, "main", d.path})
			if d.policy.selfHeal {
				e.handEdits = append(e.handEdits, appRef{"argocd", d.name})
			}
		}
	}
	add(appDef{name: "cert-manager", chartRepo: "https://charts.jetstack.io", chart: "cert-manager", ref: "v1.16.2", policy: selfHeal})
	add(appDef{name: "ingress-nginx", chartRepo: "https://kubernetes.github.io/ingress-nginx", chart: "ingress-nginx", ref: "4.11.3", policy: selfHeal, web: true})
	add(appDef{name: "grafana", chartRepo: "https://grafana.github.io/helm-charts", chart: "grafana", ref: "8.5.1", valuesRef: true,
		repo: platformRepo, path: "clusters/prod-eu-1/grafana", policy: selfHeal, web: true, destNS: "monitoring"})
	for _, name := range platformApps {
		d := appDef{name: name, policy: selfHeal}
		switch name {
		case "prometheus", "loki", "tempo":
			d.destNS, d.stateful = "monitoring", true
		case "cluster-autoscaler", "metrics-server", "node-local-dns":
			d.destNS, d.policy = "kube-system", autoSync
		case appPaused:
			d.policy.disabled = true
		case appZombie:
			d.policy = manual
		}
		add(d)
	}
	root := e.app(appDef{namespace: "argocd", name: appRoot, project: "platform", repo: platformRepo, path: "clusters/prod-eu-1/apps",
		ref: "main", policy: selfHeal, destNS: "argocd", resources: children})
	e.add(argocd.Applications, root)
}

// pausedByDriftdeck records a pause as driftdeck writes it: automated.enabled
// false plus the annotations naming who, why, until when and what was there.
// During the pause the on-call scaled the admission Deployment to zero by
// hand to unblock deploys: the hand fix a resume's self-heal would revert
// (the demo's Argo CD API shows it, handFix).
func (e *estate) pausedByDriftdeck(obj map[string]any) {
	st := obj["status"].(map[string]any)
	st["sync"].(map[string]any)["status"] = "OutOfSync"
	for _, it := range st["resources"].([]any) {
		if r := it.(map[string]any); r["kind"] == "Deployment" && r["name"] == appPaused {
			r["status"] = "OutOfSync"
		}
	}
	md := obj["metadata"].(map[string]any)
	ann := md["annotations"].(map[string]any)
	ann[pause.AnnotationBy] = "sre-lead@example.com"
	ann[pause.AnnotationReason] = "INC-4412: policy rollout blocks deploys, paused while we investigate"
	ann[pause.AnnotationAt] = e.ago(40 * time.Minute)
	ann[pause.AnnotationUntil] = ts(e.now.Add(80 * time.Minute))
	ann[pause.AnnotationMode] = pause.ModeAutoSync
	ann[pause.AnnotationPrevious] = `{"prune":true,"selfHeal":true}`
}

// zombie leaves an operationState Running with no operation: the controller
// will never finish it and terminate cannot reach it.
func (e *estate) zombie(obj map[string]any) {
	st := obj["status"].(map[string]any)["operationState"].(map[string]any)
	st["phase"], st["message"], st["startedAt"] = "Running", "one or more tasks are running", e.ago(47*time.Minute)
	delete(st, "finishedAt")
	delete(st, "syncResult")
}

func (e *estate) storefront(t Timings) {
	appSetUID := e.uid("ApplicationSet", "argocd", appSetName)
	var elements []any
	for _, svc := range storefrontApps {
		elements = append(elements, map[string]any{"svc": svc})
		d := appDef{namespace: "argocd", name: svc, project: "storefront", repo: storefrontRepo, path: "services/" + svc + "/overlays/prod",
			ref: "main", server: prodCluster, destNS: "storefront", policy: selfHeal, web: svc == appSelfHeal || svc == "frontend",
			labels: map[string]any{"team": "storefront", "tier": "prod"},
			owner: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": appSetName,
				"uid": appSetUID, "controller": true, "blockOwnerDeletion": true}}
		var obj map[string]any
		switch svc {
		case appRunning:
			head := e.git.Push(storefrontRepo, "main", d.path)
			obj = e.app(d)
			outOfSync(obj, head)
			e.running(obj, map[string]any{"revision": head, "prune": true, "syncOptions": strs(d.policy.syncOptions...)},
				map[string]any{"automated": true}, "one or more tasks are running", 1500*time.Millisecond)
		case appSelfHeal:
			obj = e.app(d)
			e.handEdited(obj, t.SelfHealDelay)
		default:
			obj = e.app(d)
			e.pushTargets = append(e.pushTargets, pushTarget{storefrontRepo, "main", d.path})
			e.handEdits = append(e.handEdits, appRef{"argocd", svc})
		}
		e.add(argocd.Applications, obj)
	}
	e.add(argocd.ApplicationSets, map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
		"metadata": metadata("argocd", appSetName, map[string]any{"uid": appSetUID, "creationTimestamp": e.ago(200 * 24 * time.Hour), "generation": int64(14)}),
		"spec": map[string]any{
			// No ignoreApplicationDifferences: the simulated ApplicationSet
			// controller reverts any edit of a child, as upstream does, until
			// a pause adds its entry (ADR 0014). The template generates the
			// children exactly as they are seeded.
			"goTemplate": true,
			"generators": []any{map[string]any{"list": map[string]any{"elements": elements}}},
			"template": map[string]any{
				"metadata": map[string]any{"name": "{{.svc}}",
					"labels":     map[string]any{"app.kubernetes.io/part-of": "storefront", "team": "storefront", "tier": "prod"},
					"finalizers": strs("resources-finalizer.argocd.argoproj.io")},
				"spec": map[string]any{
					"project":     "storefront",
					"source":      map[string]any{"repoURL": storefrontRepo, "path": "services/{{.svc}}/overlays/prod", "targetRevision": "main"},
					"destination": map[string]any{"server": prodCluster, "namespace": "storefront"},
					"syncPolicy":  syncPolicyOf(selfHeal),
				},
			},
		},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": "ResourcesUpToDate", "status": "True", "reason": "ApplicationSetUpToDate",
			"message": "All applications have been generated successfully", "lastTransitionTime": e.ago(3 * time.Hour),
		}}},
	})
}

// handEdited is a live change made by hand a moment ago, after the last
// sync: OutOfSync at the same revision, which self-heal reverts.
func (e *estate) handEdited(obj map[string]any, selfHealDelay time.Duration) {
	st := obj["status"].(map[string]any)
	st["sync"].(map[string]any)["status"] = "OutOfSync"
	markOutOfSync(st, "Deployment")
	finished := e.now.Add(-min(selfHealDelay, 2*time.Second))
	op := st["operationState"].(map[string]any)
	op["finishedAt"], op["startedAt"] = ts(finished), ts(finished.Add(-40*time.Second))
	hist := st["history"].([]any)
	last := hist[len(hist)-1].(map[string]any)
	last["deployedAt"], last["deployStartedAt"] = ts(finished), ts(finished.Add(-40*time.Second))
	st["reconciledAt"] = ts(e.now)
}

func (e *estate) payments() {
	add := func(d appDef, scenario func(obj map[string]any, d *appDef)) {
		d.project, d.repo, d.path, d.ref = "payments", paymentsRepo, "apps/"+d.name+"/prod", "main"
		d.labels = map[string]any{"team": "payments", "pci": "true"}
		var head string
		if scenario != nil {
			head = e.git.Push(paymentsRepo, "main", d.path)
		}
		obj := e.app(d)
		if scenario != nil {
			outOfSync(obj, head)
			scenario(obj, &d)
		}
		e.add(argocd.Applications, obj)
	}
	add(appDef{namespace: "argocd", name: appBlocked, policy: manual}, func(obj map[string]any, _ *appDef) {
		e.running(obj, map[string]any{"revision": "main", "prune": false, "syncOptions": strs(manual.syncOptions...)},
			map[string]any{"username": "release-bot@example.com", "automated": false}, "Sync operation blocked by sync window", 4*time.Minute)
		obj["operation"].(map[string]any)["info"] = []any{map[string]any{"name": "Reason", "value": "ledger schema v42 rollout (CHG-2231)"}}
	})
	add(appDef{namespace: "argocd", name: appBlockedAuto, policy: autoSync}, func(map[string]any, *appDef) {})
	add(appDef{namespace: "argocd", name: "billing-reconciler", policy: autoSync}, nil)
	add(appDef{namespace: paymentsNS, name: "fraud-scoring", policy: autoSync}, nil)
	add(appDef{namespace: paymentsNS, name: "payouts", policy: manual}, nil)
	add(appDef{namespace: paymentsNS, name: appFailing, policy: autoSync, web: true}, func(obj map[string]any, d *appDef) {
		e.failed(obj, d)
	})
	e.appBehavior[paymentsNS+"/"+appFailing] = sim.AppBehavior{FailWith: failingMessage}
	e.pushTargets = append(e.pushTargets, pushTarget{paymentsRepo, "main", "apps/fraud-scoring/prod"})
}

// failed records an automated sync of the head that failed, and the
// SyncError that keeps auto-sync from retrying it.
func (e *estate) failed(obj map[string]any, d *appDef) {
	st := obj["status"].(map[string]any)
	head := st["sync"].(map[string]any)["revision"].(string)
	op := st["operationState"].(map[string]any)
	op["phase"], op["message"] = "Failed", failingMessage
	op["startedAt"], op["finishedAt"] = e.ago(3*time.Minute+40*time.Second), e.ago(3*time.Minute)
	op["operation"] = map[string]any{"sync": map[string]any{"revision": head, "prune": true, "syncOptions": strs(d.policy.syncOptions...)},
		"initiatedBy": map[string]any{"automated": true}, "retry": map[string]any{"limit": int64(5)}}
	result := op["syncResult"].(map[string]any)
	result["revision"] = head
	for _, it := range result["resources"].([]any) {
		r := it.(map[string]any)
		if r["kind"] == "Deployment" {
			r["status"], r["message"], r["hookPhase"] = "SyncFailed", failingMessage, "Failed"
		}
	}
	st["health"] = map[string]any{"status": "Degraded", "lastTransitionTime": e.ago(3 * time.Minute)}
	st["conditions"] = []any{map[string]any{"type": "SyncError", "lastTransitionTime": e.ago(3 * time.Minute),
		"message": fmt.Sprintf("Failed last sync attempt to [%s]: %s", head, failingMessage)}}
}

func (e *estate) data() {
	add := func(d appDef, scenario func(obj map[string]any)) {
		d.namespace, d.project = "argocd", "data"
		if d.chart == "" {
			d.repo, d.path, d.ref = dataRepo, "deploy/"+d.name, "main"
		}
		var head string
		if scenario != nil {
			head = e.git.Push(dataRepo, "main", d.path)
		}
		obj := e.app(d)
		if scenario != nil {
			outOfSync(obj, head)
			scenario(obj)
		}
		e.add(argocd.Applications, obj)
		if scenario == nil && d.chart == "" && d.policy.auto {
			e.pushTargets = append(e.pushTargets, pushTarget{dataRepo, "main", d.path})
			e.handEdits = append(e.handEdits, appRef{"argocd", d.name}) // no self-heal: stays drifted until a push
		}
	}
	add(appDef{name: appAwaiting, policy: manual, stateful: true}, func(map[string]any) {})
	add(appDef{name: "airflow", policy: autoSync, web: true}, nil)
	add(appDef{name: "trino", policy: autoSync}, nil)
	add(appDef{name: "clickhouse", policy: autoSync, stateful: true}, nil)
	add(appDef{name: "debezium", policy: autoSync}, nil)
	add(appDef{name: "spark-operator", chartRepo: "https://kubeflow.github.io/spark-operator", chart: "spark-operator", ref: "2.0.2", policy: autoSync}, nil)
	add(appDef{name: "redis-cache", chartRepo: "https://charts.bitnami.com/bitnami", chart: "redis", ref: "20.1.4", policy: selfHeal, stateful: true}, nil)
	add(appDef{name: appStuck, policy: manual, stateful: true}, func(obj map[string]any) {
		e.running(obj, map[string]any{"revision": "main", "prune": false}, map[string]any{"username": "maria.k@example.com", "automated": false},
			stuckMessage, 25*time.Minute)
		inWaves(obj)
		obj["status"].(map[string]any)["health"] = map[string]any{"status": "Progressing", "lastTransitionTime": e.ago(25 * time.Minute)}
	})
	e.appBehavior["argocd/"+appStuck] = sim.AppBehavior{Hang: true}
	add(appDef{name: appPrune, policy: manual}, func(obj map[string]any) {
		st := obj["status"].(map[string]any)
		res := append(st["resources"].([]any),
			map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": appPrune, "name": appPrune + "-worker",
				"status": "OutOfSync", "requiresPruning": true, "requiresDeletionConfirmation": true},
			map[string]any{"group": "batch", "version": "v1", "kind": "CronJob", "namespace": appPrune, "name": appPrune + "-nightly",
				"status": "OutOfSync", "requiresPruning": true, "requiresDeletionConfirmation": true})
		sortResources(res)
		st["resources"] = res
		e.running(obj, map[string]any{"revision": "main", "prune": true, "syncOptions": strs("Prune=confirm", "CreateNamespace=true")},
			map[string]any{"username": "dana@example.com", "automated": false},
			"waiting for pruning confirmation of apps/Deployment/"+appPrune+"-worker and 1 more resources", 7*time.Minute)
	})
}

func (e *estate) finance() {
	add := func(d appDef, drifted bool) {
		d.namespace, d.project, d.repo, d.ref = ReadOnlyNamespace, "finance", financeRepo, "main"
		d.path = "envs/prod/" + d.name
		var head string
		if drifted {
			head = e.git.Push(financeRepo, "main", d.path)
		}
		obj := e.app(d)
		if drifted {
			outOfSync(obj, head)
		}
		e.add(argocd.Applications, obj)
	}
	add(appDef{name: appReadOnly, policy: manual}, true)
	add(appDef{name: "finance-exports", policy: autoSync}, false)
	add(appDef{name: "ledger-archive", policy: manual, stateful: true}, false)
}

// outOfSync marks an app OutOfSync at a newer head: the branch moved and
// the app's manifests changed.
func outOfSync(obj map[string]any, head string) {
	st := obj["status"].(map[string]any)
	sync := st["sync"].(map[string]any)
	sync["status"], sync["revision"] = "OutOfSync", head
	markOutOfSync(st, "Deployment", "ConfigMap")
}

func markOutOfSync(st map[string]any, kinds ...string) {
	for _, it := range st["resources"].([]any) {
		r := it.(map[string]any)
		for _, k := range kinds {
			if r["kind"] == k {
				r["status"] = "OutOfSync"
			}
		}
	}
}

// running puts an operation in progress, started d ago.
// inWaves gives the app's resources the sync waves of a database rolled
// out in order (its config first, what serves it last) and its running
// sync the result of the waves done so far: the Sync phase, in wave 0.
func inWaves(obj map[string]any) {
	st := obj["status"].(map[string]any)
	var done []any
	for _, r := range st["resources"].([]any) {
		res := r.(map[string]any)
		if res["hook"] == true {
			continue
		}
		switch res["kind"] {
		case "ConfigMap", "Secret", "ServiceAccount", "ExternalSecret":
			res["syncWave"] = int64(-1)
		case "Service", "Ingress", "ServiceMonitor", "PodMonitor":
			res["syncWave"] = int64(1)
			continue // not applied yet
		}
		done = append(done, map[string]any{"group": res["group"], "version": res["version"], "kind": res["kind"], "namespace": res["namespace"],
			"name": res["name"], "status": "Synced", "syncPhase": "Sync", "message": "configured"})
	}
	st["operationState"].(map[string]any)["syncResult"] = map[string]any{"resources": done, "revision": "main"}
}

func (e *estate) running(obj map[string]any, sync, initiatedBy map[string]any, message string, d time.Duration) {
	sync["syncStrategy"] = map[string]any{"hook": map[string]any{}}
	op := map[string]any{"sync": sync, "initiatedBy": initiatedBy, "retry": map[string]any{"limit": int64(5)}}
	obj["operation"] = op
	st := obj["status"].(map[string]any)
	st["operationState"] = map[string]any{
		"operation": op, "phase": "Running", "message": message, "startedAt": e.ago(d),
	}
}
