package inmem

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
)

// Dynamic returns client-go's fake dynamic client wired to the server. Every
// resource answers from the server; one it does not serve is NotFound.
// Clients list some resources before discovery says whether they are
// served: name those in unserved, or the fake panics on their list instead
// of answering 404 as an apiserver does.
func (s *Server) Dynamic(unserved ...schema.GroupVersionResource) *dynamicfake.FakeDynamicClient {
	listKinds := map[schema.GroupVersionResource]string{}
	for _, r := range unserved {
		listKinds[r] = r.Resource + "List"
	}
	for _, r := range s.order {
		listKinds[r.GVR] = r.Kind + "List"
	}
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds)
	dc.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if !s.Serves(a.GetResource()) {
			return true, nil, apierrors.NewNotFound(a.GetResource().GroupResource(), "")
		}
		return s.react(a, nil)
	})
	dc.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		if !s.Serves(a.GetResource()) {
			return true, nil, apierrors.NewNotFound(a.GetResource().GroupResource(), "")
		}
		w, err := s.Watch(a.GetResource(), watchOptions(a, nil))
		return true, w, err
	})
	return dc
}

// Kube returns client-go's fake clientset. The resources the server serves
// (Events, say) are stored here, as typed objects on the way in and out; the
// rest fall through to the clientset's own tracker. Discovery lists every
// resource the server serves.
func (s *Server) Kube() *k8sfake.Clientset {
	cs := k8sfake.NewSimpleClientset() // NewClientset spends ~0.4s building its field manager, which nothing here uses
	cs.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if !s.Serves(a.GetResource()) {
			return false, nil, nil
		}
		return s.react(a, s.typed(a.GetResource()))
	})
	cs.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		if !s.Serves(a.GetResource()) {
			return false, nil, nil
		}
		conv := s.typed(a.GetResource())
		w, err := s.Watch(a.GetResource(), watchOptions(a, func(m map[string]any) (runtime.Object, error) { return conv(m, false) }))
		return true, w, err
	})
	cs.Discovery().(*fakediscovery.FakeDiscovery).Resources = s.discovery()
	return cs
}

// converter turns a stored object into the typed object a clientset expects.
type converter func(obj map[string]any, list bool) (runtime.Object, error)

func (s *Server) typed(gvr schema.GroupVersionResource) converter {
	res := s.resources[gvr]
	return func(obj map[string]any, list bool) (runtime.Object, error) {
		gvk := res.GVK()
		if list {
			gvk.Kind += "List"
		}
		out, err := scheme.Scheme.New(gvk)
		if err != nil {
			return &unstructured.Unstructured{Object: obj}, nil
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, out); err != nil {
			return nil, err
		}
		return out, nil
	}
}

func watchOptions(a k8stesting.Action, conv func(map[string]any) (runtime.Object, error)) WatchOptions {
	wa, _ := a.(k8stesting.WatchActionImpl)
	r := wa.GetWatchRestrictions()
	return WatchOptions{Namespace: a.GetNamespace(), Label: r.Labels, Field: r.Fields, ResourceVersion: r.ResourceVersion, Convert: conv}
}

// react serves one recorded action; conv, when set, converts results to typed
// objects.
func (s *Server) react(a k8stesting.Action, conv converter) (bool, runtime.Object, error) {
	gvr, ns := a.GetResource(), a.GetNamespace()
	out := func(u *unstructured.Unstructured, err error) (bool, runtime.Object, error) {
		if err != nil {
			return true, nil, err
		}
		if conv == nil {
			return true, u, nil
		}
		t, err := conv(u.Object, false)
		return true, t, err
	}
	switch act := a.(type) {
	case k8stesting.GetActionImpl:
		if sub := act.GetSubresource(); sub != "" && sub != "status" {
			return true, nil, apierrors.NewNotFound(gvr.GroupResource(), act.GetName()+"/"+sub)
		}
		return out(s.Get(gvr, ns, act.GetName()))
	case k8stesting.ListActionImpl:
		r := act.GetListRestrictions()
		list, err := s.List(gvr, ns, r.Labels, r.Fields)
		if err != nil || conv == nil {
			return true, list, err
		}
		t, err := conv(list.UnstructuredContent(), true)
		return true, t, err
	case k8stesting.CreateActionImpl:
		obj, err := toUnstructured(act.GetObject())
		if err != nil {
			return true, nil, err
		}
		if act.GetSubresource() != "" {
			return true, nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), "create "+act.GetSubresource())
		}
		return out(s.Create(gvr, ns, obj, len(act.GetCreateOptions().DryRun) > 0))
	case k8stesting.UpdateActionImpl:
		obj, err := toUnstructured(act.GetObject())
		if err != nil {
			return true, nil, err
		}
		return out(s.Update(gvr, ns, obj, act.GetSubresource(), len(act.GetUpdateOptions().DryRun) > 0))
	case k8stesting.PatchActionImpl:
		return out(s.Patch(gvr, ns, act.GetName(), act.GetPatchType(), act.GetPatch(), act.GetSubresource(), len(act.GetPatchOptions().DryRun) > 0))
	case k8stesting.DeleteActionImpl:
		return true, nil, s.Delete(gvr, ns, act.GetName(), act.GetDeleteOptions())
	}
	return true, nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), a.GetVerb())
}

func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot read %T: %v", obj, err))
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// discovery describes the served resources the way the apiserver's discovery
// endpoint does, status subresources included.
func (s *Server) discovery() []*metav1.APIResourceList {
	var out []*metav1.APIResourceList
	byGV := map[string]*metav1.APIResourceList{}
	for _, r := range s.order {
		gv := r.GVR.GroupVersion().String()
		l, ok := byGV[gv]
		if !ok {
			l = &metav1.APIResourceList{GroupVersion: gv}
			byGV[gv] = l
			out = append(out, l)
		}
		verbs := r.Verbs
		if len(verbs) == 0 {
			verbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{
			Name: r.GVR.Resource, SingularName: strings.ToLower(r.Kind), Namespaced: r.Namespaced,
			Kind: r.Kind, Verbs: verbs, ShortNames: r.ShortNames,
		})
		if r.Status {
			l.APIResources = append(l.APIResources, metav1.APIResource{
				Name: r.GVR.Resource + "/status", Namespaced: r.Namespaced, Kind: r.Kind, Verbs: []string{"get", "patch", "update"},
			})
		}
	}
	return out
}
