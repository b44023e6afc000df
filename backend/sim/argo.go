package sim

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// AppBehavior says how the simulated controller treats one Application's syncs.
type AppBehavior struct {
	// FailWith makes every sync fail with this message; empty: syncs succeed.
	FailWith string
	// Hang makes syncs start and never finish (terminate still ends them):
	// they wait on a PreSync hook Job named <app>-presync, as a sync whose
	// hook never completes does, unless a seeded message already says what
	// the sync waits for.
	Hang bool
}

// ArgoOptions configure the simulated Argo CD application controller.
type ArgoOptions struct {
	// Namespace limits the Applications watched; "" watches all namespaces.
	Namespace string
	// ControlNamespace is where AppProjects live (Argo CD's own namespace).
	ControlNamespace string
	// SyncDuration is how long a sync runs once it may.
	SyncDuration time.Duration
	// SelfHealDelay is the wait after the last sync before self-heal reverts
	// a live change (Argo CD's self-heal backoff).
	SelfHealDelay time.Duration
	// WindowRecheck is how often an operation or auto-sync held by a sync
	// window is looked at again.
	WindowRecheck time.Duration
	// Git answers where branches point; nil leaves revisions as they are.
	Git *Git
	// Behavior picks failing or hanging syncs per Application; nil: all succeed.
	Behavior func(namespace, name string) AppBehavior
	// Events, when set, receives the controller's Events.
	Events kubernetes.Interface
	// OnError hears of failed writes (they are retried).
	OnError func(error)
}

func (o *ArgoOptions) defaults() {
	if o.ControlNamespace == "" {
		o.ControlNamespace = "argocd"
	}
	if o.SyncDuration <= 0 {
		o.SyncDuration = 2 * time.Second
	}
	if o.SelfHealDelay <= 0 {
		o.SelfHealDelay = 5 * time.Second
	}
	if o.WindowRecheck <= 0 {
		o.WindowRecheck = 10 * time.Second
	}
}

// Messages the Argo CD controller writes, verbatim.
const (
	msgRunning         = "one or more tasks are running"
	msgSucceeded       = "successfully synced (all tasks run)"
	msgTerminated      = "Operation terminated"
	msgBlockedByWindow = "Sync operation blocked by sync window"
	msgWaitingPrefix   = "waiting for "
	argoManager        = "argocd-application-controller"
)

// Argo is the simulated Argo CD application controller.
type Argo struct {
	dyn      dynamic.Interface
	opts     ArgoOptions
	loop     *loop
	apps     cache.SharedIndexInformer
	projects cache.SharedIndexInformer
	rec      recorder
	ready    chan struct{}

	mu sync.Mutex
	// began remembers when this controller started (or unblocked) each running
	// operation: startedAt has only second precision.
	began map[objectKey]time.Time
}

// NewArgo returns a controller; Run starts it.
func NewArgo(dyn dynamic.Interface, opts ArgoOptions) *Argo {
	opts.defaults()
	a := &Argo{
		dyn: dyn, opts: opts, ready: make(chan struct{}), began: map[objectKey]time.Time{},
		rec: recorder{kube: opts.Events, component: argoManager, onError: opts.OnError},
	}
	a.loop = newLoop(a.reconcile, opts.OnError, retryAfter(opts.SyncDuration))
	a.apps = a.loop.inform(dyn, argocd.Applications, opts.Namespace, selfKey)
	a.projects = a.loop.inform(dyn, argocd.AppProjects, opts.ControlNamespace, a.appsOfProject)
	opts.Git.Subscribe(a.onPush)
	return a
}

// retryAfter is the wait before a failed write is tried again.
func retryAfter(step time.Duration) time.Duration { return min(step, time.Second) }

// Run reconciles until ctx ends.
func (a *Argo) Run(ctx context.Context) error {
	a.loop.run(ctx, 2, a.ready)
	return nil
}

// Ready is closed once the controller has read every Application and project.
func (a *Argo) Ready() <-chan struct{} { return a.ready }

func (a *Argo) client(namespace string) dynamic.ResourceInterface {
	return a.dyn.Resource(argocd.Applications).Namespace(namespace)
}

// appsOfProject maps a changed AppProject to the Applications it governs.
func (a *Argo) appsOfProject(p *unstructured.Unstructured) []objectKey {
	var out []objectKey
	for _, it := range a.apps.GetStore().List() {
		u := it.(*unstructured.Unstructured)
		if objread.New(u.Object).Str("spec", "project") == p.GetName() {
			out = append(out, objectKey{u.GetNamespace(), u.GetName()})
		}
	}
	return out
}

// onPush queues the Applications that track the pushed branch.
func (a *Argo) onPush(repo, ref, _ string) {
	for _, it := range a.apps.GetStore().List() {
		u := it.(*unstructured.Unstructured)
		for _, src := range sourcesOf(objread.New(u.Object)) {
			if SameRepo(src.repo, repo) && NormalizeRef(src.ref) == ref {
				a.loop.queue.Add(objectKey{u.GetNamespace(), u.GetName()})
				break
			}
		}
	}
}

func (a *Argo) behavior(k objectKey) AppBehavior {
	if a.opts.Behavior == nil {
		return AppBehavior{}
	}
	return a.opts.Behavior(k.namespace, k.name)
}

// reconcile looks at one Application, freshly read, and takes the one step
// the real controller would take next.
func (a *Argo) reconcile(ctx context.Context, k objectKey) (time.Duration, error) {
	obj, err := a.client(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		a.forget(k)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	app := readApp(obj)
	now := time.Now()
	if app.refresh != "" {
		return immediately, a.refresh(ctx, app, now)
	}
	if patch := a.compare(app, now); patch != nil {
		_, err := mergePatch(ctx, a.client(k.namespace), k.name, argoManager, patch)
		return immediately, err
	}
	switch {
	case app.operation != nil && (app.phase == "" || completed(app.phase)):
		return a.startOperation(ctx, app, now)
	case app.operation != nil:
		return a.progress(ctx, app, now)
	}
	return a.autoSync(ctx, app, now)
}

// immediately re-runs a reconcile at once (after a write, to take the next step).
const immediately = time.Nanosecond

// refresh is what the controller does for argocd.argoproj.io/refresh: compare
// again, record reconciledAt and remove the annotation in the same write.
func (a *Argo) refresh(ctx context.Context, app *app, now time.Time) error {
	patch := map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{argocd.AnnotationRefresh: nil}},
		"status":   map[string]any{"reconciledAt": timestamp(now)},
	}
	_, err := mergePatch(ctx, a.client(app.key.namespace), app.key.name, argoManager, patch)
	return err
}

func (a *Argo) forget(k objectKey) {
	a.mu.Lock()
	delete(a.began, k)
	a.mu.Unlock()
}

// windows evaluates the sync windows of the app's project now.
func (a *Argo) windows(app *app, now time.Time) argocd.Verdict {
	var ws []argocd.SyncWindow
	if it, ok, _ := a.projects.GetStore().GetByKey(a.opts.ControlNamespace + "/" + app.project); ok {
		ws = argocd.ReadWindows(it.(*unstructured.Unstructured).Object)
	}
	return argocd.Evaluate(ws, app.key.name, app.destNamespace, app.destServer, app.destName, now)
}

// ManualChange simulates somebody editing a live resource of the app by hand:
// the controller's next comparison finds it OutOfSync at the same revision.
// Only self-heal reverts such a change.
func (a *Argo) ManualChange(ctx context.Context, namespace, name string) error {
	obj, err := a.client(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	app := readApp(obj)
	resources := app.resources(func(i int, r map[string]any) {
		if i == app.driftTarget() {
			r["status"] = "OutOfSync"
		}
	})
	patch := map[string]any{"status": map[string]any{
		"sync":         map[string]any{"status": "OutOfSync"},
		"reconciledAt": timestamp(time.Now()),
		"resources":    resources,
	}}
	_, err = mergePatch(ctx, a.client(namespace), name, argoManager, patch)
	return err
}

// compare plays the controller's comparison with Git: when the tracked
// branch moved, the app is compared at the new revision, and OutOfSync when a
// commit since the one it is at touched its path.
func (a *Argo) compare(app *app, now time.Time) map[string]any {
	if a.opts.Git == nil {
		return nil
	}
	var heads []string
	moved, touched := false, false
	for i, src := range app.sources {
		head, ok := a.opts.Git.Head(src.repo, src.ref)
		if !ok {
			return nil
		}
		heads = append(heads, head)
		if i < len(app.syncRevisions) && app.syncRevisions[i] == head {
			continue
		}
		moved = true
		from := ""
		if i < len(app.syncRevisions) {
			from = app.syncRevisions[i]
		}
		path, _ := src.raw["path"].(string)
		touched = touched || a.opts.Git.Touched(src.repo, src.ref, from, path)
	}
	if !moved {
		return nil
	}
	sync := map[string]any{}
	if app.multiSource {
		sync["revisions"] = toAny(heads)
	} else {
		sync["revision"] = heads[0]
	}
	status := map[string]any{"sync": sync, "reconciledAt": timestamp(now)}
	if touched {
		sync["status"] = "OutOfSync"
		status["resources"] = app.resources(func(_ int, r map[string]any) {
			if k, _ := r["kind"].(string); k == "Deployment" || k == "ConfigMap" {
				r["status"] = "OutOfSync"
			}
		})
	}
	return map[string]any{"status": status}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func completed(phase string) bool {
	return phase == "Succeeded" || phase == "Failed" || phase == "Error"
}
