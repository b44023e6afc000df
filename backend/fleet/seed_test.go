package fleet

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

const sha1 = "1111111111111111111111111111111111111111"
const sha2 = "2222222222222222222222222222222222222222"

// app is an Application with the given syncPolicy fields and status body.
func app(t testing.TB, ns, name, policy, status string, extra ...string) *unstructured.Unstructured {
	meta, top := "", ""
	if len(extra) > 0 {
		meta = extra[0]
	}
	if len(extra) > 1 {
		top = extra[1]
	}
	return obj(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application",
		"metadata":{"name":%q,"namespace":%q%s},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/apps.git","path":%q,"targetRevision":"main"},
			"destination":{"server":"https://kubernetes.default.svc","namespace":%q},"syncPolicy":{%s}}%s,
		"status":{%s}}`, name, ns, meta, name, name, policy, top, status)
}

func seedArgo(t *testing.T, dyn dynamic.Interface, ns string) {
	drifted := `"sync":{"status":"OutOfSync","revision":"` + sha1 + `"},"health":{"status":"Healthy"}`
	running := func(started string) string {
		return `"sync":{"status":"OutOfSync"},"health":{"status":"Progressing"},"operationState":{"phase":"Running","message":"one or more tasks are running","startedAt":"` + started + `","operation":{"sync":{"revision":"` + sha1 + `"}}}`
	}
	op := `"operation":{"initiatedBy":{"username":"alice"},"sync":{"revision":"` + sha1 + `"}}`
	// The windowed apps live in their own project, with a deny window open now.
	create(t, dyn, argocd.AppProjects, obj(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"AppProject",
		"metadata":{"name":"frozen","namespace":%q},
		"spec":{"sourceRepos":["*"],"destinations":[{"server":"*","namespace":"*"}],
			"syncWindows":[{"kind":"deny","schedule":"* * * * *","duration":"1h","applications":["*"],"manualSync":false}]}}`, ns), false)
	objs := []*unstructured.Unstructured{
		app(t, ns, "healthy", `"automated":{"prune":true}`, `"sync":{"status":"Synced","revision":"`+sha1+`"},"health":{"status":"Healthy"}`),
		app(t, ns, "manual-drifted", ``, drifted),
		app(t, ns, "syncing", `"automated":{}`, running(ago(time.Minute)), "", ","+op),
		app(t, ns, "hung", `"automated":{}`, running(ago(40*time.Minute)), "", ","+op),
		app(t, ns, "queued", `"automated":{}`, drifted, "", ","+op),
		app(t, ns, "zombie", `"automated":{}`, running(ago(5*time.Minute))),
		app(t, ns, "failed", `"automated":{}`, `"sync":{"status":"OutOfSync"},"health":{"status":"Degraded"},"operationState":{"phase":"Failed","message":"one or more objects failed to apply","startedAt":"`+ago(3*time.Minute)+`","finishedAt":"`+ago(2*time.Minute)+`","operation":{"sync":{}}}`),
		app(t, ns, "held-by-window", `"automated":{}`, `"sync":{"status":"OutOfSync"},"health":{"status":"Healthy"},"operationState":{"phase":"Running","message":"Sync operation blocked by sync window","startedAt":"`+ago(time.Minute)+`","operation":{"sync":{}}}`, "", ","+op),
		app(t, ns, "prune-wait", `"automated":{}`, `"sync":{"status":"OutOfSync"},"health":{"status":"Healthy"},"operationState":{"phase":"Running","message":"waiting for pruning confirmation of apps/Deployment/old","startedAt":"`+ago(time.Minute)+`","operation":{"sync":{}}}`, "", ","+op),
		app(t, ns, "broken-source", `"automated":{}`, `"sync":{"status":"Unknown"},"health":{"status":"Healthy"},"conditions":[{"type":"ComparisonError","message":"repository not found","lastTransitionTime":"`+ago(time.Minute)+`"}]`),
		app(t, ns, "owned", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`,
			`,"ownerReferences":[{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","name":"team-apps","uid":"7c1f0b6e-0000-4000-8000-000000000001","controller":true}]`),
		app(t, ns, "child", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`,
			`,"annotations":{"argocd.argoproj.io/tracking-id":"root:argoproj.io/Application:`+ns+`/child"}`),
	}
	windowed := app(t, ns, "windowed", `"automated":{}`, drifted)
	windowed.Object["spec"].(map[string]any)["project"] = "frozen"
	objs = append(objs, windowed)
	for _, o := range objs {
		create(t, dyn, argocd.Applications, o, false)
	}
}

const readyStatus = `{"observedGeneration":1,"lastUpdate":{"state":"succeeded","lastSuccessfulCommit":"` + sha1 + `","lastAttemptedCommit":"` + sha1 + `"},
	"conditions":[{"type":"Ready","status":"True","reason":"ProcessingCompleted","message":"the stack has been processed and is up to date","lastTransitionTime":"2026-11-29T09:00:00Z"}]}`

// stack is a Stack pinned at sha1 with the given extra metadata and status.
func stack(t testing.TB, ns, name, meta, status string) *unstructured.Unstructured {
	return obj(t, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":%q,"namespace":%q%s},
		"spec":{"stack":"org/%s/prod","projectRepo":"https://git.example.com/infra.git","commit":%q},
		"status":%s}`, name, ns, meta, name, sha1, status)
}

func seedStacks(t *testing.T, dyn dynamic.Interface, ns string) {
	cond := func(typ, status, reason, msg string) string {
		return `{"type":"` + typ + `","status":"` + status + `","reason":"` + reason + `","message":"` + msg + `","lastTransitionTime":"` + ago(10*time.Minute) + `"}`
	}
	for _, s := range []*unstructured.Unstructured{
		stack(t, ns, "ready", "", readyStatus),
		stack(t, ns, "stalled", "", `{"lastUpdate":{"state":"failed"},"conditions":[`+cond("Ready", "False", "NotReadyStalled", "reconciliation is stalled")+`,`+cond("Stalled", "True", "UpdateFailed", "up failed 3 times; not retrying until the spec or source changes")+`]}`),
		stack(t, ns, "locked", "", `{"lastUpdate":{"state":"failed"},"conditions":[`+cond("Ready", "False", "NotReadyInProgress", "")+`,`+cond("Reconciling", "True", "RetryingAfterFailure", "1 update failure(s)")+`]}`),
		stack(t, ns, "proposed", `,"annotations":{"driftdeck.io/proposed-commit":"`+sha2+`"}`, readyStatus),
	} {
		create(t, dyn, pulumiop.Stacks, s, true)
	}
	// Operator v1's CRD prunes lastUpdate.message; v2 keeps the lock error.
	patchStatus(t, dyn, pulumiop.Stacks, ns, "locked", `{"lastUpdate":{"message":"the stack is currently locked by 1 lock(s)"}}`, true)
}
