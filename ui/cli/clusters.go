package cli

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// clusterSet is the connected contexts, for commands that act on named units
// and need no watches.
type clusterSet struct {
	byName map[string]*kube.Cluster
	order  []string
	// argo are the ways to the contexts' Argo CD instances through their
	// API servers; a context without one reads its Applications through
	// the Kubernetes API.
	argo []*fleet.ArgoRoute
}

// argoAPI is the API server a context's Applications go through, when
// that is their route.
func (s *clusterSet) argoAPI(context string) (*argoapi.Client, bool) {
	for _, r := range s.argo {
		if r.Context == context {
			return r.Client, true
		}
	}
	return nil, false
}

func (s *clusterSet) get(name string) (*kube.Cluster, bool) {
	c, ok := s.byName[name]
	return c, ok
}

// connectClusters connects the selected contexts (or the demo) without
// watching anything.
func connectClusters(ctx context.Context, g *globals) (*clusterSet, error) {
	s := &clusterSet{byName: map[string]*kube.Cluster{}}
	if g.demo {
		c, err := startDemo(ctx, g)
		if err != nil {
			return nil, err
		}
		s.byName[c.Context], s.order = c, []string{c.Context}
		return s, nil
	}
	names, err := contextNames(g)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		c, err := connectContext(g, n)
		if err != nil {
			return nil, err
		}
		s.byName[n] = c
		s.order = append(s.order, n)
	}
	clusters := make([]*kube.Cluster, len(s.order))
	for i, n := range s.order {
		clusters[i] = s.byName[n]
	}
	s.argo, err = argoRoutes(ctx, g, clusters)
	return s, err
}

// resolve parses a unit reference and fills in the context when only one is
// connected.
func (s *clusterSet) resolve(ref string) (model.Key, error) {
	k, err := model.ParseRef(ref)
	if err != nil {
		return k, usageError(err)
	}
	if k.Context == "" {
		if len(s.order) != 1 {
			return k, usageError(fmt.Errorf("unit %q: several contexts are selected (%s): name one, as <context>:%s", ref, strings.Join(s.order, ", "), ref))
		}
		k.Context = s.order[0]
	}
	if _, ok := s.byName[k.Context]; !ok {
		return k, usageError(fmt.Errorf("unit %q: context %q is not selected (have: %s)", ref, k.Context, strings.Join(s.order, ", ")))
	}
	return k, nil
}

// connectUnit connects the selected contexts and resolves one unit reference.
func connectUnit(ctx context.Context, g *globals, ref string) (*clusterSet, model.Key, error) {
	set, err := connectClusters(ctx, g)
	if err != nil {
		return nil, model.Key{}, err
	}
	k, err := set.resolve(ref)
	return set, k, err
}

// lookUnit reads the unit's object once, so that a command that works on it
// through another source (a diff, a preview, a state backend) says first
// whether it exists, may be read, or the cluster answers at all.
func lookUnit(ctx context.Context, set *clusterSet, k model.Key) error {
	gvr, ok := engines.Resource(k.Engine)
	if !ok {
		return usageError(fmt.Errorf("%s: driftdeck does not know %s units", k.Ref(), k.Engine))
	}
	c, _ := set.get(k.Context)
	if api, ok := set.argoAPI(k.Context); ok && k.Engine == model.EngineArgoCD {
		if _, err := api.Application(ctx, argoapi.AppOf(k)); err != nil {
			return fmt.Errorf("reading %s through Argo CD (it may not be read, or it does not exist): %w", k.Ref(), err)
		}
		return nil
	}
	_, err := c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s does not exist in context %s: %w", k.Ref(), k.Context, err)
	case err != nil:
		return fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	return nil
}
