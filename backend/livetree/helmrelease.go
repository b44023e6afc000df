package livetree

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/restree"
)

// readHelmRelease builds a HelmRelease's tree, as `flux tree helmrelease`
// lists it: the objects of its current release's manifest, read from the
// release's storage Secret (only the manifest: the values it also holds
// are never kept), with the live objects they own.
func (r *Reader) readHelmRelease(ctx context.Context, k model.Key) (*restree.Tree, error) {
	c, ok := r.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	hr, err := getNewest(ctx, c, flux.HelmReleases, k)
	if err != nil {
		return nil, err
	}
	o := objread.New(hr)
	st := o.At("status")
	latest := st.Objects("history")
	if len(latest) == 0 {
		t := restree.BuildRecorded(nil, nil, nil, nil)
		t.Destination, t.Recorded = "context "+c.Context, "the Helm release"
		t.Notes = []string{"no release recorded (status.history is empty): helm-controller has released nothing yet"}
		return t, nil
	}
	name, version := latest[0].Str("name"), latest[0].Int("version")
	storage := st.Str("storageNamespace")
	if storage == "" {
		storage = k.Namespace
	}
	secret := restree.ReleaseSecret(name, int(version))
	where := fmt.Sprintf("Helm release %s v%d (Secret %s/%s)", name, version, storage, secret)
	s, err := c.Kube.CoreV1().Secrets(storage).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		t := restree.BuildRecorded(nil, nil, nil, nil)
		t.Destination, t.Recorded = "context "+c.Context, where
		t.Notes = []string{fmt.Sprintf("the release's objects are not listed: reading its Secret: %v", err)}
		return t, nil
	}
	refs, _, err := restree.ReleaseRefs(s.Data["release"])
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", k.Ref(), where, err)
	}
	t := r.recordedTree(ctx, c, refs, nil)
	t.ResourceVersion, t.Recorded = o.Str("metadata", "resourceVersion"), where
	return t, nil
}
