package livetree

import (
	"context"
	"fmt"

	"github.com/driftdeck/driftdeck/backend/flux"
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
	ks, err := getNewest(ctx, c, flux.Kustomizations, k)
	if err != nil {
		return nil, err
	}
	refs, versions, bad := restree.InventoryRefs(ks)
	var notes []string
	if len(refs) == 0 {
		notes = append(notes, "no inventory recorded (status.inventory is empty): it has applied nothing yet, or its kustomize-controller keeps none")
	}
	var t *restree.Tree
	if secret := objread.New(ks).Str("spec", "kubeConfig", "secretRef", "name"); secret != "" {
		t = restree.BuildRecorded(refs, versions, nil, nil)
		t.Destination = "the cluster of kubeConfig Secret " + secret
		notes = append(notes, "it applies to another cluster (spec.kubeConfig): live objects not read")
	} else {
		t = r.recordedTree(ctx, c, refs, versions)
	}
	if len(bad) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d inventory entries not understood, e.g. %q", len(bad), bad[0]))
	}
	t.ResourceVersion, t.Recorded, t.Notes = objread.New(ks).Str("metadata", "resourceVersion"), "status.inventory", append(notes, t.Notes...)
	return t, nil
}
