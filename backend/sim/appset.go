package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/argocd"
)

// The simulated ApplicationSet controller follows argo-cd's
// applicationset/controllers/applicationset_controller.go (Reconcile,
// createOrUpdateInCluster, createInCluster, deleteInCluster) and
// applicationset/utils (CreateOrUpdate, applyIgnoreDifferences, policy.go),
// read at v2.14.21 and v3.5.1, which agree on every rule here. It knows the
// list generator only (what the demo and the tests use) and ignore rules by
// JSON pointer (jqPathExpressions are not evaluated).

// AppSetOptions configure the simulated ApplicationSet controller.
type AppSetOptions struct {
	// Namespace limits the ApplicationSets watched; "" watches all.
	Namespace string
	// Policy is the controller's --policy: sync (the default),
	// create-update, create-only or create-delete.
	Policy string
	// EnablePolicyOverride is --enable-policy-override: only then does an
	// ApplicationSet's spec.syncPolicy.applicationsSync replace Policy.
	EnablePolicyOverride bool
	// Resync reconciles every ApplicationSet again this often (upstream, a
	// generator's requeueAfterSeconds); 0: only on changes.
	Resync time.Duration
	// Events, when set, receives the controller's Events.
	Events  kubernetes.Interface
	OnError func(error)
}

const appSetManager = "argocd-applicationset-controller"

// Annotations and finalizer prefixes the controller keeps from the live
// Application (defaultPreservedAnnotations, defaultPreservedFinalizers).
var (
	appSetKeptAnnotations = []string{"notified.notifications.argoproj.io", argocd.AnnotationRefresh, "argocd.argoproj.io/hydrate"}
	appSetKeptFinalizers  = []string{"pre-delete-finalizer.argocd.argoproj.io", "post-delete-finalizer.argocd.argoproj.io"}
)

// AppSet is the simulated ApplicationSet controller.
type AppSet struct {
	dyn   dynamic.Interface
	opts  AppSetOptions
	loop  *loop
	rec   recorder
	ready chan struct{}

	mu     sync.Mutex
	passes map[objectKey]int
}

// NewAppSet returns a controller; Run starts it.
func NewAppSet(dyn dynamic.Interface, opts AppSetOptions) *AppSet {
	if opts.Policy == "" {
		opts.Policy = "sync"
	}
	s := &AppSet{dyn: dyn, opts: opts, ready: make(chan struct{}), passes: map[objectKey]int{},
		rec: recorder{kube: opts.Events, component: appSetManager, onError: opts.OnError}}
	s.loop = newLoop(s.reconcile, opts.OnError, time.Second)
	s.loop.inform(dyn, argocd.ApplicationSets, opts.Namespace, selfKey)
	// Owns(&Application{}) with upstream's predicate (getOwnsHandlerPredicates,
	// progressive syncs off): an edit of a generated Application's spec,
	// annotations, labels or finalizers queues its ApplicationSet, which is
	// how such an edit is reverted at once; the application controller's
	// status writes do not, nor does a create.
	s.loop.own(dyn, argocd.Applications, opts.Namespace, ownerKey, templateChanged)
	return s
}

// templateChanged is upstream's shouldRequeueApplicationSet: whether an
// update of a generated Application changed what the ApplicationSet
// controller owns of it (empty and absent alike).
func templateChanged(old, updated *unstructured.Unstructured) bool {
	return !reflect.DeepEqual(old.Object["spec"], updated.Object["spec"]) ||
		!sameOrEmpty(old.GetAnnotations(), updated.GetAnnotations()) ||
		!sameOrEmpty(old.GetLabels(), updated.GetLabels()) ||
		!sameOrEmpty(old.GetFinalizers(), updated.GetFinalizers())
}

func sameOrEmpty[T any](a, b T) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Len() == 0 && vb.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Run reconciles until ctx ends.
func (s *AppSet) Run(ctx context.Context) error {
	s.loop.run(ctx, 1, s.ready)
	return nil
}

// Ready is closed once the controller has read every ApplicationSet and
// Application.
func (s *AppSet) Ready() <-chan struct{} { return s.ready }

// Passes is how many reconciles of an ApplicationSet have completed: a test
// that waits for two more than it saw knows one started after its write.
func (s *AppSet) Passes(namespace, name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.passes[objectKey{namespace, name}]
}

func ownerKey(u *unstructured.Unstructured) []objectKey {
	for _, ref := range u.GetOwnerReferences() {
		if ref.Kind == "ApplicationSet" && ref.Controller != nil && *ref.Controller {
			return []objectKey{{u.GetNamespace(), ref.Name}}
		}
	}
	return nil
}

func (s *AppSet) reconcile(ctx context.Context, k objectKey) (time.Duration, error) {
	obj, err := s.dyn.Resource(argocd.ApplicationSets).Namespace(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer func() {
		s.mu.Lock()
		s.passes[k]++
		s.mu.Unlock()
	}()
	var set appSetSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &set); err != nil {
		return 0, fmt.Errorf("reading ApplicationSet %s: %w", k.name, err)
	}
	desired, err := set.generate(obj)
	if err != nil {
		return s.opts.Resync, err
	}
	policy := s.policy(&set)
	for _, app := range desired {
		if err := s.createOrUpdate(ctx, obj, &set, app, policy); err != nil {
			return s.opts.Resync, err
		}
	}
	if policy == "sync" || policy == "create-delete" {
		if err := s.deleteOthers(ctx, obj, desired); err != nil {
			return s.opts.Resync, err
		}
	}
	return s.opts.Resync, nil
}

// policy is utils.DefaultPolicy: the ApplicationSet's applicationsSync only
// when the controller allows overrides.
func (s *AppSet) policy(set *appSetSpec) string {
	if s.opts.EnablePolicyOverride && set.Spec.SyncPolicy.ApplicationsSync != "" {
		return set.Spec.SyncPolicy.ApplicationsSync
	}
	return s.opts.Policy
}

// createOrUpdate creates a missing Application; an existing one is updated
// only when the policy allows updates (create-update, sync): its spec,
// labels, annotations and finalizers become the generated ones, except what
// preservedFields and the defaults keep, and the paths of the
// ignoreApplicationDifferences rules naming it (or all) are taken out of both
// sides before the comparison, so they keep their live values.
func (s *AppSet) createOrUpdate(ctx context.Context, owner *unstructured.Unstructured, set *appSetSpec, gen map[string]any, policy string) error {
	ri := s.dyn.Resource(argocd.Applications).Namespace(owner.GetNamespace())
	name := nestedString(gen, "metadata", "name")
	live, err := ri.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		app := &unstructured.Unstructured{Object: gen}
		app.SetNamespace(owner.GetNamespace())
		app.SetOwnerReferences([]metav1.OwnerReference{controllerRef(owner)})
		created, err := ri.Create(ctx, app, metav1.CreateOptions{FieldManager: appSetManager})
		if err == nil {
			s.rec.event(ctx, owner, corev1.EventTypeNormal, "created", fmt.Sprintf("created Application %q", created.GetName()))
		}
		return err
	}
	if err != nil || (policy != "sync" && policy != "create-update") {
		return err
	}
	want := runtime.DeepCopyJSON(live.Object)
	want["spec"] = normalizeAppSpec(gen["spec"])
	meta := want["metadata"].(map[string]any)
	meta["annotations"] = kept(nestedStringMap(gen, "metadata", "annotations"), live.GetAnnotations(), append(set.Spec.PreservedFields.Annotations, appSetKeptAnnotations...))
	meta["labels"] = kept(nestedStringMap(gen, "metadata", "labels"), live.GetLabels(), set.Spec.PreservedFields.Labels)
	meta["finalizers"] = keptFinalizers(gen, live.GetFinalizers())
	have := runtime.DeepCopyJSON(live.Object)
	have["spec"] = normalizeAppSpec(have["spec"])
	have, want = set.ignoring(name, have), set.ignoring(name, want)
	if reflect.DeepEqual(emptyAsAbsent(have), emptyAsAbsent(want)) {
		return nil
	}
	// client.MergeFrom(normalizedLive): what differs, as a merge patch.
	from, _ := json.Marshal(have)
	to, _ := json.Marshal(want)
	body, err := jsonpatch.CreateMergePatch(from, to)
	if err == nil && string(body) == "{}" {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := ri.Patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: appSetManager}); err != nil {
		return fmt.Errorf("updating Application %s: %w", name, err)
	}
	s.rec.event(ctx, owner, corev1.EventTypeNormal, "updated", fmt.Sprintf("updated Application %q", name))
	return nil
}

// deleteOthers is deleteInCluster: Applications it owns that it no longer
// generates are deleted.
func (s *AppSet) deleteOthers(ctx context.Context, owner *unstructured.Unstructured, desired []map[string]any) error {
	ri := s.dyn.Resource(argocd.Applications).Namespace(owner.GetNamespace())
	list, err := ri.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, d := range desired {
		want[nestedString(d, "metadata", "name")] = true
	}
	for _, app := range list.Items {
		if k := ownerKey(&app); len(k) == 1 && k[0].name == owner.GetName() && !want[app.GetName()] {
			if err := ri.Delete(ctx, app.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			s.rec.event(ctx, owner, corev1.EventTypeNormal, "Deleted", fmt.Sprintf("Deleted Application %q", app.GetName()))
		}
	}
	return nil
}

// appSetSpec is what the controller reads of an ApplicationSet.
type appSetSpec struct {
	Spec struct {
		GoTemplate bool `json:"goTemplate"`
		Generators []struct {
			List *struct {
				Elements []map[string]any `json:"elements"`
			} `json:"list"`
		} `json:"generators"`
		Template struct {
			Metadata map[string]any `json:"metadata"`
			Spec     map[string]any `json:"spec"`
		} `json:"template"`
		SyncPolicy struct {
			ApplicationsSync string `json:"applicationsSync"`
		} `json:"syncPolicy"`
		PreservedFields struct {
			Annotations []string `json:"annotations"`
			Labels      []string `json:"labels"`
		} `json:"preservedFields"`
		IgnoreApplicationDifferences []struct {
			Name         string   `json:"name"`
			JSONPointers []string `json:"jsonPointers"`
		} `json:"ignoreApplicationDifferences"`
	} `json:"spec"`
}

// generate renders the template once per element of each list generator.
func (set *appSetSpec) generate(owner *unstructured.Unstructured) ([]map[string]any, error) {
	var out []map[string]any
	for i, g := range set.Spec.Generators {
		if g.List == nil {
			return nil, fmt.Errorf("ApplicationSet %s: generator %d: only the list generator is simulated", owner.GetName(), i)
		}
		for _, el := range g.List.Elements {
			tmpl := map[string]any{"metadata": set.Spec.Template.Metadata, "spec": set.Spec.Template.Spec}
			app, err := render(runtime.DeepCopyJSONValue(any(tmpl)), el, set.Spec.GoTemplate)
			if err != nil {
				return nil, fmt.Errorf("ApplicationSet %s: %w", owner.GetName(), err)
			}
			m := app.(map[string]any)
			m["apiVersion"], m["kind"] = "argoproj.io/v1alpha1", "Application"
			out = append(out, m)
		}
	}
	return out, nil
}

// ignoring is applyIgnoreDifferences: each JSON pointer of each rule that
// names the Application (or none) removed, one at a time; a pointer to
// nothing is skipped, as upstream's normalizer skips a failing patch.
func (set *appSetSpec) ignoring(name string, obj map[string]any) map[string]any {
	doc, _ := json.Marshal(obj)
	for _, rule := range set.Spec.IgnoreApplicationDifferences {
		if rule.Name != "" && rule.Name != name {
			continue
		}
		for _, p := range rule.JSONPointers {
			op, _ := json.Marshal([]map[string]string{{"op": "remove", "path": p}})
			patch, err := jsonpatch.DecodePatch(op)
			if err != nil {
				continue
			}
			if out, err := patch.Apply(doc); err == nil {
				doc = out
			}
		}
	}
	// Decoded from JSON, as upstream compares: numbers alike whatever the
	// client decoded them as.
	var out map[string]any
	_ = json.Unmarshal(doc, &out)
	return out
}

var fastTemplateParam = regexp.MustCompile(`{{\s*([^{}\s]+)\s*}}`)

// render replaces the parameters of every string in a template: Go
// templates with goTemplate (missing keys render empty, upstream's default),
// else fasttemplate's {{key}} (an unknown key stays as written).
func render(v any, params map[string]any, goTemplate bool) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			r, err := render(x, params, goTemplate)
			if err != nil {
				return nil, err
			}
			t[k] = r
		}
	case []any:
		for i, x := range t {
			r, err := render(x, params, goTemplate)
			if err != nil {
				return nil, err
			}
			t[i] = r
		}
	case string:
		if !goTemplate {
			return fastTemplateParam.ReplaceAllStringFunc(t, func(m string) string {
				key := fastTemplateParam.FindStringSubmatch(m)[1]
				if p, ok := params[key]; ok {
					return fmt.Sprint(p)
				}
				return m
			}), nil
		}
		tpl, err := template.New("").Option("missingkey=zero").Parse(t)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		if err := tpl.Execute(&b, params); err != nil {
			return nil, err
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
	return v, nil
}

// normalizeAppSpec is argo.NormalizeApplicationSpec on the fields a
// template sets: an empty project is "default", an empty syncPolicy none.
func normalizeAppSpec(v any) any {
	spec, _ := runtime.DeepCopyJSONValue(v).(map[string]any)
	if spec == nil {
		return map[string]any{"project": "default"}
	}
	if p, _ := spec["project"].(string); p == "" {
		spec["project"] = "default"
	}
	if sp, ok := spec["syncPolicy"].(map[string]any); ok && len(sp) == 0 {
		delete(spec, "syncPolicy")
	}
	return spec
}

// kept is the generated map plus the live values of the keys to keep.
func kept(gen, live map[string]string, keep []string) map[string]any {
	out := map[string]any{}
	for k, v := range gen {
		out[k] = v
	}
	for _, k := range keep {
		if v, ok := live[k]; ok {
			out[k] = v
		}
	}
	return out
}

func keptFinalizers(gen map[string]any, live []string) []any {
	var out []any
	for _, f := range nestedSlice(gen, "metadata", "finalizers") {
		out = append(out, f)
	}
	for _, f := range live {
		for _, prefix := range appSetKeptFinalizers {
			if strings.HasPrefix(f, prefix) {
				out = append(out, f)
			}
		}
	}
	return out
}

// emptyAsAbsent compares as the typed objects upstream compares: an empty
// map or list is the same as none.
func emptyAsAbsent(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if c := emptyAsAbsent(x); c != nil {
				out[k] = c
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(t) == 0 {
			return nil
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = emptyAsAbsent(x)
		}
		return out
	}
	return v
}

func controllerRef(owner *unstructured.Unstructured) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "argoproj.io/v1alpha1", Kind: "ApplicationSet", Name: owner.GetName(), UID: owner.GetUID(),
		Controller: &yes, BlockOwnerDeletion: &yes}
}

func nestedString(obj map[string]any, path ...string) string {
	s, _, _ := unstructured.NestedString(obj, path...)
	return s
}

func nestedStringMap(obj map[string]any, path ...string) map[string]string {
	m, _, _ := unstructured.NestedStringMap(obj, path...)
	return m
}

func nestedSlice(obj map[string]any, path ...string) []string {
	s, _, _ := unstructured.NestedStringSlice(obj, path...)
	return s
}
