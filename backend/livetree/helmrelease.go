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

// readHelmRelease builds a HelmRelease's tree, as `flux tree helmrelease`
// lists it: the objects of its current release's manifest, read from the
// release's storage Secret (only the manifest: the values it also holds
// are never kept), with the live objects they own.
func (r *Reader) readHelmRelease(ctx context.Context, k model.Key) (*restree.Tree, error) {
	c, ok := r.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	hr, err := getHelmRelease(ctx, c, k)
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
	secret := fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, version)
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
	var namespaces []string
	for _, ref := range refs {
		if ref.Namespace != "" && !slices.Contains(namespaces, ref.Namespace) {
			namespaces = append(namespaces, ref.Namespace)
		}
	}
	slices.Sort(namespaces)
	live, read, notes, err := r.readLive(ctx, c, namespaces, slices.Concat(restree.LiveKindList, restree.FluxKindList))
	if err != nil {
		live, read, notes = nil, nil, []string{fmt.Sprintf("live objects not read from context %s: %v", c.Context, err)}
	}
	t := restree.BuildRecorded(refs, nil, live, read)
	t.ResourceVersion, t.Recorded = o.Str("metadata", "resourceVersion"), where
	t.Destination, t.Context, t.Notes = "context "+c.Context, c.Context, append(notes, t.Notes...)
	return t, nil
}

// getHelmRelease reads the HelmRelease in the newest version the cluster
// serves.
func getHelmRelease(ctx context.Context, c *kube.Cluster, k model.Key) (map[string]any, error) {
	var err error
	for _, gvr := range flux.HelmReleases {
		var got *unstructured.Unstructured
		if got, err = c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{}); err == nil {
			return got.Object, nil
		}
		if !apierrors.IsNotFound(err) || kube.ObjectMissing(err) {
			break
		}
	}
	return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
}
