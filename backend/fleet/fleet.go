// Package fleet connects driftdeck's live model to clusters: for every selected
// context it discovers which GitOps engines are installed, watches their
// objects into the store, and keeps the context's connection state.
package fleet

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/driftmark"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/store"
)

// Fleet is the live model of every selected cluster.
type Fleet struct {
	Store    *store.Store
	Projects *argocd.Projects
	Updates  *pulumiop.UpdateIndex
	Sources  *flux.Sources
	// Requests are the change requests of every context.
	Requests *changereq.Index
	// Drift holds each Stack's last drift check (RecordDrift).
	Drift *driftmark.Book

	mu       sync.Mutex
	clusters map[string]*kube.Cluster
	order    []string
	synced   sync.WaitGroup
	// refused receives watch errors no retry will mend (forbidden,
	// unauthorized), so that one-shot commands can stop waiting.
	refused chan error
	// engines limits what is read; nil reads every engine.
	engines []model.Engine
	// argo are the contexts whose Applications go through an Argo CD API
	// server, by context.
	argo map[string]*ArgoRoute
	// roots are the root modules read beside the clusters, nil when none.
	roots *roots
}

// Options select what to watch.
type Options struct {
	// Namespace limits every context to one namespace; "" watches all.
	Namespace  string
	Thresholds model.Thresholds
	// Engines limits what is read at all to these engines' units and what
	// classifies them; nil reads every engine.
	Engines []model.Engine
	// Argo are Argo CD API servers, each reading its context's
	// Applications (ADR 0033): several instances side by side.
	Argo []*ArgoRoute
}

// New returns a fleet with an empty store.
func New(opts Options) *Fleet {
	th := opts.Thresholds
	if th == (model.Thresholds{}) {
		th = model.DefaultThresholds
	}
	f := &Fleet{
		Store:    store.New(th),
		Projects: argocd.NewProjects(),
		Updates:  pulumiop.NewUpdateIndex(),
		Sources:  flux.NewSources(),
		Requests: changereq.NewIndex(),
		Drift:    driftmark.New(),
		clusters: map[string]*kube.Cluster{},
		refused:  make(chan error, 16),
		engines:  opts.Engines,
		argo:     map[string]*ArgoRoute{},
	}
	for _, r := range opts.Argo {
		f.argo[r.Context] = r
	}
	f.Store.AddClassifier(f.Projects)
	f.Store.AddClassifier(f.Updates)
	f.Store.AddClassifier(f.Sources)
	f.Store.AddClassifier(f.Requests)
	f.Store.AddClassifier(f.Drift) // last: it marks drift on the sync state the others settled
	return f
}

// Cluster returns a connected context by name.
func (f *Fleet) Cluster(context string) (*kube.Cluster, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.clusters[context]
	return c, ok
}

// Contexts lists the contexts in the order they were added.
func (f *Fleet) Contexts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.order...)
}

// Watched lists every resource a context's watches may list, every version
// of each: they list before discovery answers (ADR 0022).
func Watched() []schema.GroupVersionResource { return slices.Clone(watched) }

// watched lists every resource driftdeck looks for.
var watched = slices.Concat(unitResources(), []schema.GroupVersionResource{argocd.AppProjects, pulumiop.Updates, changereq.GVR}, sourceResources())

// unitResources are every version of every engine's units.
func unitResources() []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, d := range engines.All() {
		out = append(out, d.Versions...)
	}
	return out
}

// served is the newest of the versions the cluster serves.
func served(c *kube.Cluster, versions []schema.GroupVersionResource) (schema.GroupVersionResource, bool) {
	for _, v := range versions {
		if c.Has(v) {
			return v, true
		}
	}
	return schema.GroupVersionResource{}, false
}

// Add connects one context: discovery, identity, then watches, all until ctx
// ends. It returns once discovery is done; the watches run on, started
// beside discovery (ADR 0022). The watches list in each of namespaces, or
// in every namespace ("", or none given); what the identity may not list
// in every namespace is read in the context's namespace instead.
func (f *Fleet) Add(ctx context.Context, c *kube.Cluster, namespaces ...string) error {
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	f.mu.Lock()
	_, dup := f.clusters[c.Context]
	f.mu.Unlock()
	if dup {
		return fmt.Errorf("context %q added twice", c.Context)
	}
	wctx, cancel := context.WithCancel(ctx)
	h := &health{store: f.Store, context: c.Context, refused: f.refused}
	l := &launcher{f: f, h: h, c: c, d: discover(wctx, c)}
	for _, s := range f.watchSpecs(c, h) {
		if !f.reads(s.engines...) {
			continue
		}
		if s.once {
			l.start(wctx, s, namespaces[0], false)
			continue
		}
		for _, ns := range namespaces {
			l.start(wctx, s, ns, false)
		}
	}
	if err := l.d.wait(wctx); err != nil {
		cancel()
		l.abandon()
		f.Store.UpdateStatus(c.Context, func(s *store.ContextStatus) {
			if s.Connected || s.Since.IsZero() {
				s.Since = time.Now()
			}
			s.Connected, s.Error = false, err.Error()
		})
		return err
	}
	context.AfterFunc(ctx, cancel)
	h.discovered.Store(true)
	f.mu.Lock()
	f.clusters[c.Context] = c
	f.order = append(f.order, c.Context)
	f.mu.Unlock()
	missing := map[string]string{}
	for _, d := range engines.All() {
		if _, ok := served(c, d.Versions); !ok && !d.Optional && f.reads(d.Engine) {
			missing[string(d.Engine)] = d.Missing()
		}
	}
	f.Store.UpdateStatus(c.Context, func(s *store.ContextStatus) {
		s.Connected, s.Since, s.Missing = true, time.Now(), missing
		s.LastEvent = time.Now()
	})
	go f.probeIdentity(ctx, c)
	return nil
}

// reads tells whether any of the engines is read.
func (f *Fleet) reads(engines ...model.Engine) bool {
	if f.engines == nil {
		return true
	}
	for _, e := range engines {
		if slices.Contains(f.engines, e) {
			return true
		}
	}
	return false
}

// watchSpecs lists every watch of one context.
func (f *Fleet) watchSpecs(c *kube.Cluster, h *health) []watchSpec {
	units := func(engine model.Engine, decode func([]byte) (map[string]any, error), convert func(string, map[string]any) *model.Unit) watchFunc {
		return func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, absent func(error) bool, done func()) {
			watchUnits(ctx, f.Store, c, gvr, engine, namespace, decode, convert, h, absent, done)
		}
	}
	specs := []watchSpec{
		// Once, not per namespace: AppProjects live in Argo CD's own
		// namespace, which may differ from those selected; they are
		// watched everywhere when we may.
		{what: "Argo CD AppProjects (sync windows)", engines: []model.Engine{model.EngineArgoCD}, once: true, versions: []schema.GroupVersionResource{argocd.AppProjects}, run: func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, absent func(error) bool, done func()) {
			projectNS := namespace
			if namespace != "" {
				if v, err := c.Access.Can(ctx, "list", gvr, "", ""); err == nil && v.Allowed {
					projectNS = ""
				}
			}
			if api, ok := f.ArgoAPI(c.Context); ok {
				pollArgo(ctx, gvr.GroupResource(), api.Projects, f.argoProjects(c.Context), absent, done)
				return
			}
			f.watchProjects(ctx, c, projectNS, h, absent, done)
		}},
		{what: "Pulumi Updates", engines: []model.Engine{model.EnginePulumi}, versions: []schema.GroupVersionResource{pulumiop.Updates}, run: func(ctx context.Context, _ schema.GroupVersionResource, namespace string, absent func(error) bool, done func()) {
			f.watchUpdates(ctx, c, namespace, h, absent, done)
		}},
	}
	// Each engine's units through the newest version served. An optional
	// one (the ApplicationSets, parents of the Applications they generate)
	// without the CRD, or the right to read it, simply has no rows: the
	// Applications are shown as roots and nothing else changes.
	for _, d := range engines.All() {
		read := []model.Engine{d.Engine}
		if d.Engine == model.EngineApplicationSet {
			read = append(read, model.EngineArgoCD) // the Applications' parents
		}
		run := units(d.Engine, d.Decode, d.Convert)
		if api, ok := f.ArgoAPI(c.Context); ok {
			switch d.Engine {
			case model.EngineArgoCD:
				run = func(ctx context.Context, _ schema.GroupVersionResource, namespace string, _ func(error) bool, done func()) {
					f.watchArgoAPI(ctx, c, namespace, h, done)
				}
			case model.EngineApplicationSet:
				convert := d.Convert
				run = func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, absent func(error) bool, done func()) {
					pollArgo(ctx, gvr.GroupResource(), api.ApplicationSets, f.argoAppSets(c.Context, namespace, convert), absent, done)
				}
			}
		}
		specs = append(specs, watchSpec{what: model.InfoOf(d.Engine).Units, units: !d.Optional, engines: read,
			versions: d.Versions, optional: d.Optional, run: run})
	}
	specs = append(specs, f.requestSpec(c, h))
	return append(specs, f.sourceSpecs(c, h)...)
}

// AddRetrying adds a context in the background, trying again with backoff
// while it cannot be reached: one dead cluster must not keep the others from
// the screen. Its status says why meanwhile.
func (f *Fleet) AddRetrying(ctx context.Context, c *kube.Cluster, namespaces ...string) {
	go func() {
		wait := time.Second
		for f.Add(ctx, c, namespaces...) != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, 30*time.Second)
		}
	}()
}

// start runs one watch; done is called once, when its first list has
// arrived. It returns done too, for a launcher that calls the watch off.
func (f *Fleet) start(ctx context.Context, h *health, run func(ctx context.Context, done func())) func() {
	f.synced.Add(1)
	h.pending.Add(1)
	var once sync.Once
	done := func() {
		once.Do(func() {
			// The status first: whoever WaitSynced releases reads it synced.
			if h.pending.Add(-1) == 0 && !h.abandoned.Load() {
				h.markSynced()
			}
			f.synced.Done()
		})
	}
	go run(ctx, done)
	return done
}

// WaitSynced blocks until every watch delivered its first list. It returns
// early with the error when a watch is refused (forbidden, unauthorized),
// the Argo CD API server cannot give its first list, or ctx ends.
func (f *Fleet) WaitSynced(ctx context.Context) error {
	ch := make(chan struct{})
	go func() { f.synced.Wait(); close(ch) }()
	select {
	case <-ch:
		return nil
	case err := <-f.refused:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *Fleet) probeIdentity(ctx context.Context, c *kube.Cluster) {
	id, err := c.Access.Identity(ctx)
	if err != nil {
		id = "unknown (" + err.Error() + ")"
	}
	f.Store.UpdateStatus(c.Context, func(s *store.ContextStatus) { s.Identity = id })
}

func (f *Fleet) watchProjects(ctx context.Context, c *kube.Cluster, namespace string, h *health, absent func(error) bool, done func()) {
	type project struct {
		namespace, name string
		windows         []argocd.SyncWindow
	}
	affected := func(name string) func(*model.Unit) bool {
		return func(u *model.Unit) bool { return u.Key.Context == c.Context && u.Argo != nil && u.Project == name }
	}
	kube.Watch(ctx, c, argocd.AppProjects, namespace, kube.Feed[project]{
		Convert: func(obj map[string]any) project {
			p := project{windows: argocd.ReadWindows(obj)}
			if md, ok := obj["metadata"].(map[string]any); ok {
				p.namespace, _ = md["namespace"].(string)
				p.name, _ = md["name"].(string)
			}
			return p
		},
		Put: func(p project) {
			f.Projects.Put(c.Context, p.namespace, p.name, p.windows)
			f.Store.Reclassify(affected(p.name))
		},
		Delete: func(ns, name string) {
			f.Projects.Remove(c.Context, ns, name)
			f.Store.Reclassify(affected(name))
		},
		Replace: func(ps []project) {
			for _, p := range ps {
				f.Projects.Put(c.Context, p.namespace, p.name, p.windows)
			}
			f.Store.Reclassify(func(u *model.Unit) bool { return u.Key.Context == c.Context && u.Argo != nil })
			done()
		},
		Absent: absent,
	}, h)
}

func (f *Fleet) watchUpdates(ctx context.Context, c *kube.Cluster, namespace string, h *health, absent func(error) bool, done func()) {
	affected := func(ns string) func(*model.Unit) bool {
		return func(u *model.Unit) bool {
			return u.Key.Context == c.Context && u.Key.Namespace == ns && u.Stack != nil && u.Stack.CurrentUpdate != ""
		}
	}
	kube.Watch(ctx, c, pulumiop.Updates, namespace, kube.Feed[pulumiop.Update]{
		Convert: func(obj map[string]any) pulumiop.Update { return pulumiop.ConvertUpdate(c.Context, obj) },
		Put: func(u pulumiop.Update) {
			f.Updates.Put(u)
			f.Store.Reclassify(affected(u.Namespace))
		},
		Delete: func(ns, name string) {
			f.Updates.Remove(c.Context, ns, name)
			f.Store.Reclassify(affected(ns))
		},
		Replace: func(us []pulumiop.Update) {
			f.Updates.Replace(c.Context, namespace, us)
			f.Store.Reclassify(func(u *model.Unit) bool { return u.Key.Context == c.Context && u.Stack != nil })
			done()
		},
		Absent: absent,
	}, h)
}

// watchUnits feeds one engine's objects into the store as units.
func watchUnits(ctx context.Context, st *store.Store, c *kube.Cluster, gvr schema.GroupVersionResource, engine model.Engine,
	namespace string, decode func([]byte) (map[string]any, error), convert func(string, map[string]any) *model.Unit, h *health,
	absent func(error) bool, done func()) {
	scope := store.Scope{Context: c.Context, Engine: engine, Namespace: namespace}
	kube.Watch(ctx, c, gvr, namespace, kube.Feed[*model.Unit]{
		Decode:  decode,
		Convert: func(obj map[string]any) *model.Unit { return model.Bounded(convert(c.Context, obj)) },
		Put:     st.Put,
		Delete: func(ns, name string) {
			st.Remove(model.Key{Context: c.Context, Engine: engine, Namespace: ns, Name: name})
		},
		Replace: func(us []*model.Unit) {
			st.Replace(scope, us)
			st.UpdateStatus(c.Context, func(s *store.ContextStatus) { s.Lists++ })
			done()
		},
		Absent: absent,
	}, h)
}
