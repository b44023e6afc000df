package livetree

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
)

// recordedTree is the tree of the objects a Flux unit recorded it applied
// (refs, their versions where known), with the live objects they own on c,
// read in the namespaces refs name.
func (r *Reader) recordedTree(ctx context.Context, c *kube.Cluster, refs []restree.Ref, versions map[restree.Ref]string) *restree.Tree {
	var namespaces []string
	for _, ref := range refs {
		if ref.Namespace != "" && !slices.Contains(namespaces, ref.Namespace) {
			namespaces = append(namespaces, ref.Namespace)
		}
	}
	slices.Sort(namespaces)
	where := "context " + c.Context
	live, read, notes, err := r.readLive(ctx, c, namespaces, slices.Concat(restree.LiveKindList, restree.FluxKindList))
	if err != nil {
		t := restree.BuildRecorded(refs, versions, nil, nil)
		t.Destination, t.Notes = where, append([]string{fmt.Sprintf("live objects not read from %s: %v", where, err)}, t.Notes...)
		return t
	}
	t := restree.BuildRecorded(refs, versions, live, read)
	t.Destination, t.Context, t.Notes = where, c.Context, append(notes, t.Notes...)
	return t
}

// getNewest reads k's object in the newest of gvrs the cluster serves.
func getNewest(ctx context.Context, c *kube.Cluster, gvrs []schema.GroupVersionResource, k model.Key) (map[string]any, error) {
	var err error
	for _, gvr := range gvrs {
		got, e := c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
		if e == nil {
			return got.Object, nil
		}
		if err = e; !apierrors.IsNotFound(e) || kube.ObjectMissing(e) {
			break
		}
	}
	return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
}
