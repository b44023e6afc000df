package fleet

import (
	"context"
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
// into the store: a list, then the live feed; when the feed breaks (the
// server restarts, the link drops) it lists again, so no unit is lost or
// kept twice.
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
		apps, err := api.Applications(ctx, argocd.DecodeSlim)
		if err == nil {
			listed = true
			units := make([]*model.Unit, 0, len(apps))
			for _, app := range apps {
				if u := mine(app); u != nil {
					units = append(units, u)
				}
			}
			f.Store.Replace(scope, units)
			f.Store.UpdateStatus(c.Context, func(s *store.ContextStatus) { s.Lists++ })
			done()
			h.Connected()
			wait = time.Second
			// From no version: the server first sends every Application as
			// it is now, so a change between the list and the watch is not
			// lost (argocd-server subscribes the watch only when it opens).
			// A deletion in that gap is mended by the next list, at the
			// latest after relistEvery.
			wctx, cancel := context.WithTimeout(ctx, relistEvery)
			err = api.Watch(wctx, "", argocd.DecodeSlim, func(ev argoapi.Event) {
				h.Event()
				u := mine(ev.App)
				switch {
				case u == nil:
				case ev.Type == "DELETED":
					f.Store.Remove(u.Key)
				default:
					f.Store.Put(u)
				}
			})
			relist := wctx.Err() != nil && ctx.Err() == nil
			cancel()
			if relist {
				continue
			}
		}
		if ctx.Err() != nil {
			return
		}
		switch {
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

// relistEvery is how often the Applications are listed again through the
// API server while its feed runs.
const relistEvery = 10 * time.Minute

// routeIdentity names the route on the context's status: the server and
// the Argo CD user the token is.
func (f *Fleet) routeIdentity(ctx context.Context, context string, api *argoapi.Client) {
	user, err := api.UserInfo(ctx)
	if err != nil {
		user = "unknown user (" + err.Error() + ")"
	}
	f.Store.UpdateStatus(context, func(s *store.ContextStatus) { s.Route = "argocd via " + api.Server() + " as " + user })
}
