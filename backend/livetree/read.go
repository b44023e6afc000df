// Package livetree reads an Application's live resource tree (restree.Tree)
// from its destination cluster, and a Kustomization's from its inventory.
package livetree

import (
	"context"
	"errors"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/restree"
)

// Reader reads Application resource trees.
type Reader struct {
	// Cluster finds a connected context by name.
	Cluster func(string) (*kube.Cluster, bool)
	// Destinations maps destination clusters to contexts (see Resolve).
	Destinations Destinations
	// Limit caps each LIST (default 500): a namespace with more objects of a
	// kind shows the first Limit and says so.
	Limit int64
	// MaxNamespaces caps how many namespaces are listed (default 20).
	MaxNamespaces int
	// ArgoAPI, when it names a server for a context, is the Argo CD API
	// server that context's Applications are read through (ADR 0033):
	// the tree is the one Argo CD keeps, whichever cluster it is on.
	ArgoAPI func(context string) (*argoapi.Client, bool)
}

// Read builds the tree of an Application: the full object by GET (the
// list's store keeps no status.resources), then the live objects of every
// namespace its resources are in, from the destination cluster when one is
// reachable. A destination that cannot be reached or read leaves the tree
// as status.resources says, with a note; only a failed read of the
// Application itself is an error.
func (r *Reader) Read(ctx context.Context, k model.Key) (*restree.Tree, error) {
	switch k.Engine {
	case model.EngineKustomization:
		return r.readKustomization(ctx, k)
	case model.EngineHelmRelease:
		return r.readHelmRelease(ctx, k)
	case model.EngineArgoCD:
	default:
		return nil, fmt.Errorf("%s: resource trees are for Argo CD Applications, Flux Kustomizations and HelmReleases", k.Ref())
	}
	if r.ArgoAPI != nil {
		if api, ok := r.ArgoAPI(k.Context); ok {
			return readThroughArgo(ctx, api, k)
		}
	}
	c, ok := r.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	got, err := c.Dynamic.Resource(argocd.Applications).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	app := got.Object
	dest, where, why := r.Destinations.Resolve(app, c, r.Cluster)
	if dest == nil {
		t := restree.Build(app, nil, nil)
		t.Destination, t.Notes = where, append([]string{why}, t.Notes...)
		return t, nil
	}
	live, read, notes, err := r.readLive(ctx, dest, namespacesOf(app), restree.LiveKindList)
	if err != nil {
		t := restree.Build(app, nil, nil)
		t.Destination, t.Notes = where, append([]string{fmt.Sprintf("live objects not read from %s: %v", where, err)}, t.Notes...)
		return t, nil
	}
	t := restree.Build(app, live, read)
	t.Destination, t.Context, t.Notes = where, dest.Context, append(notes, t.Notes...)
	return t, nil
}

// readThroughArgo is the tree Argo CD's API server keeps of the
// Application, under the user's Argo CD identity.
func readThroughArgo(ctx context.Context, api *argoapi.Client, k model.Key) (*restree.Tree, error) {
	app, err := api.Application(ctx, argoapi.AppOf(k))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	nodes, err := api.ResourceTree(ctx, argoapi.AppOf(k))
	if err != nil {
		t := restree.Build(app, nil, nil)
		t.Destination = api.Server()
		t.Notes = append([]string{"Argo CD's resource tree not read: " + err.Error()}, t.Notes...)
		return t, nil
	}
	t := restree.BuildFromArgo(app, nodes)
	t.Destination = "Argo CD's resource tree at " + api.Server()
	return t, nil
}

// namespacesOf lists the namespaces of the app's resources and hooks, and
// its destination namespace.
func namespacesOf(app map[string]any) []string {
	a := objread.New(app)
	seen := map[string]bool{}
	if ns := a.Str("spec", "destination", "namespace"); ns != "" {
		seen[ns] = true
	}
	for _, path := range [][]string{{"status", "resources"}, {"status", "operationState", "syncResult", "resources"}} {
		for _, res := range a.Objects(path...) {
			if ns := res.Str("namespace"); ns != "" {
				seen[ns] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// readLive lists kinds in each namespace, bounded, and says which it read.
// A kind the user may not list is noted and skipped; an unreachable
// cluster is an error.
func (r *Reader) readLive(ctx context.Context, c *kube.Cluster, namespaces []string, kinds []restree.LiveKind) ([]map[string]any, restree.Kinds, []string, error) {
	limit, maxNS := r.Limit, r.MaxNamespaces
	if limit <= 0 {
		limit = 500
	}
	if maxNS <= 0 {
		maxNS = 20
	}
	var notes []string
	if len(namespaces) > maxNS {
		notes = append(notes, fmt.Sprintf("live objects read in the first %d of %d namespaces", maxNS, len(namespaces)))
		namespaces = namespaces[:maxNS]
	}
	var out []map[string]any
	read := restree.KindsOf(kinds)
	for _, ns := range namespaces {
		for _, lk := range kinds {
			gvr := lk.GVR
			list, err := c.Dynamic.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{Limit: limit})
			switch {
			case apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err):
				notes = append(notes, fmt.Sprintf("%s in %s not readable: %v", gvr.Resource, ns, reasonOf(err)))
				delete(read, [2]string{gvr.Group, lk.Kind})
				continue
			case err != nil:
				return nil, nil, nil, err
			}
			if list.GetContinue() != "" {
				notes = append(notes, fmt.Sprintf("more than %d %s in %s: the first %d are shown", limit, gvr.Resource, ns, limit))
			}
			for i := range list.Items {
				obj := list.Items[i].Object
				// Lists carry kind and apiVersion on the list only.
				if _, ok := obj["kind"]; !ok {
					obj["kind"] = lk.Kind
				}
				if _, ok := obj["apiVersion"]; !ok {
					obj["apiVersion"] = schema.GroupVersion{Group: gvr.Group, Version: gvr.Version}.String()
				}
				out = append(out, obj)
			}
		}
	}
	return out, read, notes, nil
}

func reasonOf(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return string(st.Status().Reason)
	}
	return err.Error()
}
