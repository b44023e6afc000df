package fleet

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// ArgoRoute reads a context's Argo CD Applications through Argo CD's API
// server, under the user's Argo CD identity and RBAC, instead of through
// the Kubernetes API (ADR 0033).
type ArgoRoute struct {
	Client *argoapi.Client
	// Context is the kube context whose Argo CD the server is.
	Context string
}

// ArgoAPI is the Argo CD API server a context's Applications are read and
// written through, when that is their route.
func (f *Fleet) ArgoAPI(context string) (*argoapi.Client, bool) {
	r, ok := f.argo[context]
	if !ok {
		return nil, false
	}
	return r.Client, true
}

// watchArgoAPI feeds the Applications the API server lets the user get
// into the store: the live feed, then a list, merged (followArgoAPI); when
// the feed breaks (the server restarts, the link drops) it does both again,
// so no unit is lost or kept twice.
func (f *Fleet) watchArgoAPI(ctx context.Context, c *kube.Cluster, namespace string, h *health, done func()) {
	api := f.argo[c.Context].Client
	go f.routeIdentity(ctx, c.Context, api)
	scope := store.Scope{Context: c.Context, Engine: model.EngineArgoCD, Namespace: namespace}
	mine := func(app map[string]any) *model.Unit {
		u := model.Bounded(argocd.Convert(c.Context, app))
		if u == nil || namespace != "" && u.Key.Namespace != namespace {
			return nil
		}
		return u
	}
	wait := time.Second
	listed := false
	for ctx.Err() == nil {
		err := f.followArgoAPI(ctx, api, scope, mine, h, func() {
			listed = true
			done()
			h.Connected()
			wait = time.Second
		})
		if ctx.Err() != nil {
			return
		}
		switch {
		case errors.Is(err, errRefollow):
			continue
		case argoapi.Unauthorized(err):
			h.refusedBy(err) // no retry mends a rejected token
		case !listed:
			// Said at once to a command waiting for the first lists; the
			// workbench goes on trying.
			h.firstListFailed(err)
		default:
			h.Disconnected(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// feedFrom is the version the live feed is asked to start from: any, so
// that argocd-server sends every change and replays nothing (the list
// gives the state; a replay would send all of it a second time).
const feedFrom = "1"

// subscribeGrace is how long argocd-server is given, once the feed's
// request is written, to subscribe it before the list is asked for: a
// change made between the list and the subscription would otherwise be
// lost until the Application changes again. It takes a few milliseconds.
const subscribeGrace = 100 * time.Millisecond

// refollowEvery is how often the feed and the list are taken again while
// the feed runs: argocd-server drops a change it cannot queue for a slow
// reader (its buffer holds 1,000), and says so only in its own log.
const refollowEvery = 10 * time.Minute

// errRefollow ends a connection that ran for refollowEvery.
var errRefollow = errors.New("taking the feed and the list again")

// followArgoAPI is one connection: the live feed opened first, then the
// list; the events that arrive while the list is read are kept and
// applied over it where they are newer than what it holds. synced is
// called once the list is in the store; it returns when the feed breaks.
func (f *Fleet) followArgoAPI(ctx context.Context, api *argoapi.Client, scope store.Scope, mine func(map[string]any) *model.Unit, h *health, synced func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	early, listing := []*argoEvent{}, true
	sent := make(chan struct{})
	broke := make(chan error, 1)
	go func() {
		from := argoapi.WatchOptions{From: feedFrom, Fields: argocd.SlimFields, Sent: func() { close(sent) }}
		broke <- api.Watch(ctx, from, argocd.DecodeSlim, func(ev argoapi.Event) {
			h.Event()
			e := &argoEvent{deleted: ev.Type == "DELETED", unit: mine(ev.App)}
			if e.unit == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if listing {
				early = append(early, e)
				return
			}
			f.applyArgoEvent(e)
		})
	}()
	select {
	case <-sent:
	case err := <-broke:
		return err
	}
	select {
	case <-time.After(subscribeGrace):
	case err := <-broke:
		return err
	}
	listed, err := argoapi.ListApplications(ctx, api, argocd.DecodeSlim, mine)
	if err != nil {
		return err
	}
	units := make([]*model.Unit, 0, len(listed))
	listedAt := make(map[model.Key]string, len(listed))
	for _, u := range listed {
		if u != nil {
			units = append(units, u)
			listedAt[u.Key] = u.ResourceVersion
		}
	}
	mu.Lock()
	f.Store.Replace(scope, units)
	for _, e := range early {
		if rv, ok := listedAt[e.unit.Key]; !ok || newerVersion(e.unit.ResourceVersion, rv) {
			f.applyArgoEvent(e)
		}
	}
	early, listing = nil, false
	mu.Unlock()
	f.Store.UpdateStatus(scope.Context, func(s *store.ContextStatus) { s.Lists++ })
	synced()
	select {
	case err := <-broke:
		return err
	case <-time.After(refollowEvery):
		return errRefollow
	}
}

// argoEvent is a change of the live feed, converted.
type argoEvent struct {
	deleted bool
	unit    *model.Unit
}

func (f *Fleet) applyArgoEvent(e *argoEvent) {
	if e.deleted {
		f.Store.Remove(e.unit.Key)
		return
	}
	f.Store.Put(e.unit)
}

// newerVersion tells whether resourceVersion a is later than b. Argo CD
// compares them as numbers (they are etcd's revisions); one that is not a
// number is taken as newer, so that a change is never dropped.
func newerVersion(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA != nil || errB != nil || x > y
}

// argoPollEvery is how often what the API server has no live feed of
// (AppProjects, ApplicationSets) is listed again.
const argoPollEvery = time.Minute

// pollArgo lists through the API server now and every argoPollEvery,
// handing each list to apply. The first list, or its failure, ends the wait
// for it: what it holds only adds to the Applications. Argo CD's RBAC
// refusing it is absent's to say, as a 403 of the Kubernetes API is.
func pollArgo(ctx context.Context, gr schema.GroupResource, list func(context.Context) ([]map[string]any, error), apply func([]map[string]any), absent func(error) bool, done func()) {
	for {
		items, err := list(ctx)
		if argoapi.PermissionDenied(err) && absent(apierrors.NewForbidden(gr, "", err)) {
			return
		}
		if err == nil {
			apply(items)
		}
		done()
		select {
		case <-ctx.Done():
			return
		case <-time.After(argoPollEvery):
		}
	}
}

// argoProjects applies each list of AppProjects read through the API
// server: their sync windows, the gone ones forgotten.
func (f *Fleet) argoProjects(context string) func([]map[string]any) {
	var known map[[2]string]bool
	return func(items []map[string]any) {
		now := make(map[[2]string]bool, len(items))
		for _, p := range items {
			md, _ := p["metadata"].(map[string]any)
			ns, _ := md["namespace"].(string)
			name, _ := md["name"].(string)
			f.Projects.Put(context, ns, name, argocd.ReadWindows(p))
			now[[2]string{ns, name}] = true
		}
		for k := range known {
			if !now[k] {
				f.Projects.Remove(context, k[0], k[1])
			}
		}
		known = now
		f.Store.Reclassify(func(u *model.Unit) bool { return u.Key.Context == context && u.Argo != nil })
	}
}

// argoAppSets applies each list of ApplicationSets read through the API
// server, in namespace ("" every one), as units.
func (f *Fleet) argoAppSets(context, namespace string, convert func(string, map[string]any) *model.Unit) func([]map[string]any) {
	scope := store.Scope{Context: context, Engine: model.EngineApplicationSet, Namespace: namespace}
	return func(items []map[string]any) {
		units := make([]*model.Unit, 0, len(items))
		for _, set := range items {
			if u := model.Bounded(convert(context, set)); u != nil && (namespace == "" || u.Key.Namespace == namespace) {
				units = append(units, u)
			}
		}
		f.Store.Replace(scope, units)
	}
}

// routeIdentity names the route on the context's status: the server and
// the Argo CD user the token is.
func (f *Fleet) routeIdentity(ctx context.Context, context string, api *argoapi.Client) {
	user, err := api.UserInfo(ctx)
	if err != nil {
		user = "unknown user (" + err.Error() + ")"
	}
	f.Store.UpdateStatus(context, func(s *store.ContextStatus) { s.Route = "argocd via " + api.Server() + " as " + user })
}
