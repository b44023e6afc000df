package argodiff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
)

const (
	// diffFieldManager owns the fields of a dry-run apply of an object Argo
	// CD has not applied itself yet.
	diffFieldManager = "driftdeck-diff"
	// argoFieldManager is the field manager Argo CD applies with. A dry run
	// under that name replaces exactly the field set Argo CD owns, so fields
	// dropped from the manifests show as removed, as they will be.
	argoFieldManager = "argocd-controller"

	annotationLastApplied = "kubectl.kubernetes.io/last-applied-configuration"
	annotationSyncOptions = "argocd.argoproj.io/sync-options"
	annotationTrackingID  = "argocd.argoproj.io/tracking-id"
	annotationInstallID   = "argocd.argoproj.io/installation-id"
	labelInstance         = "app.kubernetes.io/instance"
)

// predictor finds each rendered object's live state and what it would become
// if Argo CD synced it, by asking the API server for a dry run.
type predictor struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
	app    *appSpec
}

// placed is one rendered object with its resource known and its namespace set.
type placed struct {
	obj     *unstructured.Unstructured
	mapping *meta.RESTMapping
}

func (p *predictor) resource(m *meta.RESTMapping, namespace string) dynamic.ResourceInterface {
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return p.dyn.Resource(m.Resource).Namespace(namespace)
	}
	return p.dyn.Resource(m.Resource)
}

// place maps a rendered object to its resource and applies Argo CD's
// namespace defaulting: a namespaced object without a namespace goes to the
// destination namespace; a cluster-scoped one has none. A kind the cluster
// does not serve gives a nil mapping.
func (p *predictor) place(obj map[string]any) (placed, error) {
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	m, err := p.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		return placed{obj: u}, nil
	}
	if err != nil {
		return placed{}, fmt.Errorf("%s %s: %w", gvk.Kind, u.GetName(), err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if u.GetNamespace() == "" {
			u.SetNamespace(p.defaultNamespace())
		}
	} else {
		u.SetNamespace("")
	}
	return placed{obj: u, mapping: m}, nil
}

// defaultNamespace is the destination namespace; without one, the
// controller's own namespace, which is where kubectl inside the controller
// puts such objects (usually the Application's namespace).
func (p *predictor) defaultNamespace() string {
	if p.app.destNamespace != "" {
		return p.app.destNamespace
	}
	return p.app.namespace
}

// predict returns the live object (nil when absent) and the predicted one.
// A warning explains a prediction that fell back to the rendered object.
func (p *predictor) predict(ctx context.Context, t placed) (live, predicted map[string]any, warning string, err error) {
	if t.mapping == nil {
		return nil, t.obj.Object, fmt.Sprintf("%s %s: the cluster does not serve this kind; shown as rendered, without a dry run", t.obj.GetKind(), t.obj.GetName()), nil
	}
	ri := p.resource(t.mapping, t.obj.GetNamespace())
	cur, err := ri.Get(ctx, t.obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, t.obj.Object, "", nil
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("reading %s %s: %w", t.obj.GetKind(), objName(t.obj), err)
	}
	copyTracking(cur, t.obj, p.app)
	out, err := p.dryRun(ctx, ri, cur, t.obj, t.mapping.GroupVersionKind)
	if err != nil {
		// The sync would fail the same way: say so, and show the rendered
		// object so the change is still visible.
		return cur.Object, t.obj.Object, fmt.Sprintf("%s %s: dry run refused, a sync would fail: %s", t.obj.GetKind(), objName(t.obj), apiMessage(err)), nil
	}
	return cur.Object, out.Object, "", nil
}

// dryRun applies the object as the sync would, without persisting it:
// server-side apply as Argo CD when the app (or the object) syncs with
// ServerSideApply=true; kubectl's client-side three-way merge when the live
// object carries kubectl's last-applied configuration (Argo CD's default
// apply); else a forced server-side apply under driftdeck's own manager.
func (p *predictor) dryRun(ctx context.Context, ri dynamic.ResourceInterface, live, obj *unstructured.Unstructured, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	dryRun := []string{metav1.DryRunAll}
	ssa := p.app.serverSideApply
	if v, ok := syncOption(obj, "ServerSideApply"); ok {
		ssa = v == "true"
	}
	if original, ok := live.GetAnnotations()[annotationLastApplied]; ok && !ssa {
		patchType, patch, err := threeWayPatch([]byte(original), obj, live, gvk)
		if err != nil {
			return nil, err
		}
		return ri.Patch(ctx, obj.GetName(), patchType, patch, metav1.PatchOptions{DryRun: dryRun, FieldManager: diffFieldManager})
	}
	manager := diffFieldManager
	if ssa {
		manager = argoFieldManager
	}
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	force := true
	return ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{DryRun: dryRun, FieldManager: manager, Force: &force})
}

// threeWayPatch computes the patch `kubectl apply` sends: from the last
// applied configuration to the new one, against the live object; strategic
// for built-in kinds, a JSON merge patch for the others.
func threeWayPatch(original []byte, obj, live *unstructured.Unstructured, gvk schema.GroupVersionKind) (types.PatchType, []byte, error) {
	modified, err := json.Marshal(obj.Object)
	if err != nil {
		return "", nil, err
	}
	current, err := json.Marshal(live.Object)
	if err != nil {
		return "", nil, err
	}
	if typed, err := scheme.Scheme.New(gvk); err == nil {
		lookup, err := strategicpatch.NewPatchMetaFromStruct(typed)
		if err != nil {
			return "", nil, err
		}
		patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, lookup, true)
		return types.StrategicMergePatchType, patch, err
	}
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current)
	return types.MergePatchType, patch, err
}

// syncOption reads one option of the object's argocd.argoproj.io/sync-options
// annotation (comma-separated Name=value pairs).
func syncOption(obj *unstructured.Unstructured, name string) (string, bool) {
	for _, opt := range strings.Split(obj.GetAnnotations()[annotationSyncOptions], ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(opt), "=")
		if ok && k == name {
			return strings.ToLower(v), true
		}
	}
	return "", false
}

// copyTracking gives the rendered object the markers Argo CD adds when it
// applies (the tracking annotation, or the instance label of label tracking),
// so they do not show as removed.
func copyTracking(live, obj *unstructured.Unstructured, app *appSpec) {
	liveAnn := live.GetAnnotations()
	for _, k := range []string{annotationTrackingID, annotationInstallID} {
		if v, ok := liveAnn[k]; ok {
			setAnnotation(obj, k, v)
		}
	}
	if v, ok := live.GetLabels()[labelInstance]; ok && (v == app.name || v == app.namespace+"_"+app.name) {
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[labelInstance] = v
		obj.SetLabels(labels)
	}
}

func setAnnotation(obj *unstructured.Unstructured, k, v string) {
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[k] = v
	obj.SetAnnotations(ann)
}

func objName(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return ns + "/" + u.GetName()
	}
	return u.GetName()
}

// apiMessage is the API server's message without the request details.
func apiMessage(err error) string {
	if s, ok := err.(apierrors.APIStatus); ok && s.Status().Message != "" {
		return s.Status().Message
	}
	return err.Error()
}
