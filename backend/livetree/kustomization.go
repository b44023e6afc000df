package livetree

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/restree"
)

// readKustomization builds a Kustomization's tree, as `flux tree
// kustomization` lists it: the objects of its inventory (what its last
// apply recorded) with the live objects they own, read on its own cluster
// in the namespaces the inventory names. One that applies to another
// cluster (spec.kubeConfig) is shown from its inventory alone, with a note.
func (r *Reader) readKustomization(ctx context.Context, k model.Key) (*restree.Tree, error) {
	c, ok := r.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	var ks map[string]any
	var err error
	for _, gvr := range flux.Kustomizations { // the newest version the cluster serves
		var got *unstructured.Unstructured
		if got, err = c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{}); err == nil {
			ks = got.Object
			break
		}
		if !apierrors.IsNotFound(err) || kube.ObjectMissing(err) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	where := "context " + c.Context
	refs, _, _ := restree.InventoryRefs(ks)
	var notes []string
	if len(refs) == 0 {
		notes = append(notes, "no inventory recorded (status.inventory is empty): it has applied nothing yet, or its kustomize-controller keeps none")
	}
	if secret := objread.New(ks).Str("spec", "kubeConfig", "secretRef", "name"); secret != "" {
		t := restree.BuildInventory(ks, nil, nil)
		t.Destination = "the cluster of kubeConfig Secret " + secret
		t.Notes = append(append(notes, "it applies to another cluster (spec.kubeConfig): live objects not read"), t.Notes...)
		return t, nil
	}
	var namespaces []string
	for _, ref := range refs {
		if ref.Namespace != "" && !slices.Contains(namespaces, ref.Namespace) {
			namespaces = append(namespaces, ref.Namespace)
		}
	}
	slices.Sort(namespaces)
	live, read, readNotes, err := r.readLive(ctx, c, namespaces, slices.Concat(restree.LiveKindList, restree.FluxKindList))
	if err != nil {
		t := restree.BuildInventory(ks, nil, nil)
		t.Destination, t.Notes = where, append(append(notes, fmt.Sprintf("live objects not read from %s: %v", where, err)), t.Notes...)
		return t, nil
	}
	t := restree.BuildInventory(ks, live, read)
	t.Destination, t.Context, t.Notes = where, c.Context, append(append(notes, readNotes...), t.Notes...)
	return t, nil
}
