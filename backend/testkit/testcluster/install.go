package testcluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

const crdTimeout = 2 * time.Minute

// InstallCRDs installs CRD sets. Definitions of the same names already in the
// cluster are deleted first, with all their objects, so nothing of an earlier
// set's schema lingers (a CRD update would switch schemas asynchronously). It
// returns when every CRD is Established and served, and requests to the new
// kinds are answered without the apiserver's start-up delays. On a shared
// control plane this changes the cluster for every test of the package.
func (c *Cluster) InstallCRDs(t testing.TB, sets ...CRDSet) {
	t.Helper()
	t0 := time.Now()
	if err := c.install(sets); err != nil {
		t.Fatal(err)
	}
	t.Logf("installed CRD sets %v in %v", setNames(sets), time.Since(t0).Round(time.Millisecond))
}

// RemoveCRDs deletes the definitions of CRD sets, with all their objects.
func (c *Cluster) RemoveCRDs(t testing.TB, sets ...CRDSet) {
	t.Helper()
	crds, err := collect(sets)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), crdTimeout)
	defer cancel()
	if err := c.remove(ctx, crds); err != nil {
		t.Fatal(err)
	}
}

func setNames(sets []CRDSet) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Name)
	}
	return out
}

// collect copies the CRDs of sets, refusing two sets that define one name.
func collect(sets []CRDSet) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	from := map[string]string{}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, s := range sets {
		crds, err := s.CRDs()
		if err != nil {
			return nil, err
		}
		for _, crd := range crds {
			if other, dup := from[crd.Name]; dup {
				return nil, fmt.Errorf("CRD sets %s and %s both define %s: install them one after the other", other, s.Name, crd.Name)
			}
			from[crd.Name] = s.Name
			out = append(out, crd.DeepCopy())
		}
	}
	return out, nil
}

func (c *Cluster) install(sets []CRDSet) error {
	crds, err := collect(sets)
	if err != nil || len(crds) == 0 {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), crdTimeout)
	defer cancel()
	if err := c.remove(ctx, crds); err != nil {
		return err
	}
	cs, err := apiextensions.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, cs, crd.Name); err != nil {
			return err
		}
	}

	// Established is not yet served: wait until discovery lists every kind.
	err = envtest.WaitForCRDs(c.cfg, crds, envtest.CRDInstallOptions{MaxTime: crdTimeout, PollInterval: 50 * time.Millisecond})
	if err != nil {
		return fmt.Errorf("waiting for CRDs %v to be served: %w", setNames(sets), err)
	}
	if err := c.warm(ctx, crds); err != nil {
		return err
	}
	return waitOutCreateHold(ctx, cs, crds)
}

// warm makes each new kind's watch cache ready. Until it is, the apiserver
// answers lists and watches with 429 and "retry after 1 s", which client-go
// obeys: a second lost per kind in every test's first request.
func (c *Cluster) warm(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition) error {
	kc, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	pending := map[string]bool{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				pending["/apis/"+crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Plural] = true
			}
		}
	}
	var last error
	err = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for path := range pending {
			last = kc.Discovery().RESTClient().Get().AbsPath(path).Param("limit", "1").MaxRetries(0).Do(ctx).Error()
			if last == nil {
				delete(pending, path)
			}
		}
		return len(pending) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the watch caches of %v: %w (last: %v)", keys(pending), err, last)
	}
	return nil
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// waitOutCreateHold waits until every CRD has been Established for 2 s: the
// apiserver holds each create it gets before that for 2 s (so that in an HA
// setup every server has seen the CRD).
func waitOutCreateHold(ctx context.Context, cs apiextensions.Interface, crds []*apiextensionsv1.CustomResourceDefinition) error {
	var latest time.Time
	for _, want := range crds {
		crd, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.LastTransitionTime.After(latest) {
				latest = cond.LastTransitionTime.Time
			}
		}
	}
	// The condition's time has whole seconds: it is at most 1 s early.
	select {
	case <-time.After(time.Until(latest.Add(2 * time.Second))):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func waitEstablished(ctx context.Context, cs apiextensions.Interface, name string) error {
	var last *apiextensionsv1.CustomResourceDefinition
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		crd, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = crd
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.NamesAccepted && cond.Status == apiextensionsv1.ConditionFalse {
				return false, fmt.Errorf("CRD %s: names not accepted: %s", name, cond.Message)
			}
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("CRD %s not Established (conditions %v): %w", name, last.Status.Conditions, err)
	}
	return err
}

// remove deletes the CRDs of these names that exist, and waits until they
// are gone. It deletes their objects first: the apiserver's own cleanup of a
// deleted CRD's objects checks for leftovers every 5 s, which would cost most
// CRD swaps 5 s. Finalizers are cleared first: nothing runs here that would
// ever remove them, and they would hold the deletion forever.
func (c *Cluster) remove(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition) error {
	cs, err := apiextensions.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	var deleted []string
	for _, want := range crds {
		crd, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, want.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := deleteObjects(ctx, dyn, crd); err != nil {
			return err
		}
		err = cs.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, crd.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting CRD %s: %w", crd.Name, err)
		}
		deleted = append(deleted, crd.Name)
	}
	for _, name := range deleted {
		err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			_, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s to be deleted: %w", name, err)
		}
	}
	return nil
}

// deleteObjects deletes every object of a CRD and waits until none is left.
func deleteObjects(ctx context.Context, dyn dynamic.Interface, crd *apiextensionsv1.CustomResourceDefinition) error {
	version := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			version = v.Name
		}
	}
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}
	list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil // not served (yet, or any more): nothing to delete through the API
	}
	if err != nil {
		return fmt.Errorf("listing %s: %w", gvr, err)
	}
	if len(list.Items) == 0 {
		return nil
	}
	if err := clearFinalizers(ctx, dyn, gvr, list.Items); err != nil {
		return err
	}
	namespaces := map[string]bool{}
	for _, obj := range list.Items {
		namespaces[obj.GetNamespace()] = true
	}
	for ns := range namespaces {
		err := dyn.Resource(gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the %s of namespace %q: %w", gvr.Resource, ns, err)
		}
	}
	return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(list.Items) == 0, nil
	})
}

func clearFinalizers(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, objs []unstructured.Unstructured) error {
	for _, obj := range objs {
		if len(obj.GetFinalizers()) == 0 {
			continue
		}
		_, err := dyn.Resource(gvr).Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.MergePatchType,
			[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("clearing the finalizers of %s %s/%s: %w", gvr.Resource, obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}
