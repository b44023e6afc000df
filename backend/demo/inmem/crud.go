package inmem

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// Get returns a copy of one object.
func (s *Server) Get(gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.resource(gvr); err != nil {
		return nil, err
	}
	obj, ok := s.objects[objKey{gvr, namespace, name}]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	return &unstructured.Unstructured{Object: deepCopy(obj)}, nil
}

// List returns copies of the objects of one resource in a namespace ("" for
// all) that match the selectors (nil selects everything).
func (s *Server) List(gvr schema.GroupVersionResource, namespace string, label labels.Selector, field fields.Selector) (*unstructured.UnstructuredList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(),
		"kind":       res.Kind + "List",
	}}
	list.SetResourceVersion(fmt.Sprint(s.rv))
	for k, obj := range s.objects {
		if k.gvr != gvr || (namespace != "" && k.namespace != namespace) || !matches(obj, label, field) {
			continue
		}
		list.Items = append(list.Items, unstructured.Unstructured{Object: deepCopy(obj)})
	}
	sortItems(list.Items)
	return list, nil
}

// Create stores a new object, as the apiserver does: server-owned metadata is
// set here, generateName is honoured.
func (s *Server) Create(gvr schema.GroupVersionResource, namespace string, in *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	return s.createLocked(res, namespace, deepCopy(in.Object), dryRun)
}

func (s *Server) createLocked(res Resource, namespace string, obj map[string]any, dryRun bool) (*unstructured.Unstructured, error) {
	gvr := res.GVR
	if err := s.checkScope(res, obj, namespace); err != nil {
		return nil, err
	}
	md := metadata(obj)
	if nameOf(obj) == "" {
		prefix, _ := md["generateName"].(string)
		if prefix == "" {
			return nil, apierrors.NewInvalid(res.GVK().GroupKind(), "", field.ErrorList{
				field.Required(field.NewPath("metadata", "name"), "name or generateName is required")})
		}
		md["name"] = prefix + randomSuffix()
	}
	k := keyOf(gvr, obj)
	if _, dup := s.objects[k]; dup {
		return nil, apierrors.NewAlreadyExists(gvr.GroupResource(), k.name)
	}
	setAPIVersionKind(obj, res)
	md["uid"] = string(uuid.NewUUID())
	md["creationTimestamp"] = nowTime(s.now())
	md["generation"] = int64(1)
	delete(md, "resourceVersion")
	delete(md, "deletionTimestamp")
	if res.Status {
		// The main resource does not write status; a create starts without it.
		delete(obj, "status")
	}
	if dryRun {
		return &unstructured.Unstructured{Object: obj}, nil
	}
	s.commitLocked(k, obj, watch.Added)
	return &unstructured.Unstructured{Object: deepCopy(obj)}, nil
}

// Update replaces an object (or its status, with subresource "status"). A
// resourceVersion in the object is a precondition.
func (s *Server) Update(gvr schema.GroupVersionResource, namespace string, in *unstructured.Unstructured, subresource string, dryRun bool) (*unstructured.Unstructured, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	k := objKey{gvr, namespace, in.GetName()}
	old, ok := s.objects[k]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), k.name)
	}
	return s.writeLocked(res, k, old, deepCopy(in.Object), subresource, dryRun)
}

// Patch applies a JSON patch or JSON merge patch atomically against the
// current object. Strategic merge patches work only on built-in kinds, as on a
// real server; server-side apply merges without field ownership (applyLocked).
func (s *Server) Patch(gvr schema.GroupVersionResource, namespace, name string, pt types.PatchType, data []byte, subresource string, dryRun bool) (*unstructured.Unstructured, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	k := objKey{gvr, namespace, name}
	if pt == types.ApplyPatchType {
		return s.applyLocked(res, k, data, subresource, dryRun)
	}
	old, ok := s.objects[k]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	cur, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	var patched []byte
	switch pt {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(data)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if patched, err = p.Apply(cur); err != nil {
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
	case types.MergePatchType:
		if patched, err = jsonpatch.MergePatch(cur, data); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	case types.StrategicMergePatchType:
		if patched, err = strategicMerge(res, cur, data); err != nil {
			return nil, err
		}
	default:
		return nil, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "patch", gvr.GroupResource(), name,
			fmt.Sprintf("the demo control plane does not support %s patches", pt), 0, false)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(patched, &obj); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return s.writeLocked(res, k, old, obj, subresource, dryRun)
}

// writeLocked stores the new version of an existing object by the rules of
// the apiserver's update path.
func (s *Server) writeLocked(res Resource, k objKey, old, obj map[string]any, subresource string, dryRun bool) (*unstructured.Unstructured, error) {
	switch {
	case subresource == "status" && !res.Status:
		return nil, apierrors.NewNotFound(res.GVR.GroupResource(), k.name+"/status")
	case subresource != "" && subresource != "status":
		return nil, apierrors.NewNotFound(res.GVR.GroupResource(), k.name+"/"+subresource)
	}
	if rv := resourceVersionOf(obj); rv != "" && rv != resourceVersionOf(old) {
		return nil, conflict(res.GVR, k.name)
	}
	if n := nameOf(obj); n != k.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the request (%s)", n, k.name))
	}
	if ns := namespaceOf(obj); ns != "" && ns != k.namespace {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the namespace of the object (%s) does not match the namespace on the request (%s)", ns, k.namespace))
	}
	switch {
	case subresource == "status":
		// Only status changes; everything else stays as stored.
		next := shallowCopy(old)
		if st, ok := obj["status"]; ok {
			next["status"] = st
		} else {
			delete(next, "status")
		}
		obj = next
	case res.Status:
		if st, ok := old["status"]; ok {
			obj["status"] = st // stored values are never modified: sharing is safe
		} else {
			delete(obj, "status")
		}
	}
	md, oldMD := metadata(obj), metadata(old)
	for _, f := range []string{"uid", "creationTimestamp", "deletionTimestamp", "generation", "namespace"} {
		if v, ok := oldMD[f]; ok {
			md[f] = v
		} else {
			delete(md, f)
		}
	}
	md["name"] = k.name
	setAPIVersionKind(obj, res)
	if specChanged(old, obj, res.Status) {
		md["generation"] = generationOf(old) + 1
	}
	if reflect.DeepEqual(withoutRV(old), withoutRV(obj)) {
		// A no-op write does not bump the resourceVersion.
		return &unstructured.Unstructured{Object: deepCopy(old)}, nil
	}
	if dryRun {
		return &unstructured.Unstructured{Object: deepCopy(obj)}, nil
	}
	if _, deleting := md["deletionTimestamp"]; deleting && len(finalizers(obj)) == 0 {
		s.commitLocked(k, obj, watch.Deleted)
		return &unstructured.Unstructured{Object: deepCopy(obj)}, nil
	}
	s.commitLocked(k, obj, watch.Modified)
	return &unstructured.Unstructured{Object: deepCopy(obj)}, nil
}

// Delete removes an object; one with finalizers is only marked for deletion.
func (s *Server) Delete(gvr schema.GroupVersionResource, namespace, name string, opts metav1.DeleteOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.resource(gvr); err != nil {
		return err
	}
	k := objKey{gvr, namespace, name}
	old, ok := s.objects[k]
	if !ok {
		return apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if p := opts.Preconditions; p != nil {
		if (p.UID != nil && *p.UID != uidOf(old)) || (p.ResourceVersion != nil && *p.ResourceVersion != resourceVersionOf(old)) {
			return conflict(gvr, name)
		}
	}
	if len(opts.DryRun) > 0 {
		return nil
	}
	if len(finalizers(old)) > 0 {
		if _, already := metadata(old)["deletionTimestamp"]; already {
			return nil
		}
		obj := deepCopy(old)
		md := metadata(obj)
		md["deletionTimestamp"] = nowTime(s.now())
		md["generation"] = generationOf(old) + 1
		s.commitLocked(k, obj, watch.Modified)
		return nil
	}
	s.commitLocked(k, old, watch.Deleted)
	return nil
}

// specChanged reports a change outside metadata (and outside status when
// status is a subresource): what makes the apiserver bump generation.
func specChanged(old, obj map[string]any, statusSub bool) bool {
	strip := func(o map[string]any) map[string]any {
		out := make(map[string]any, len(o))
		for k, v := range o {
			if k == "metadata" || k == "apiVersion" || k == "kind" || (statusSub && k == "status") {
				continue
			}
			out[k] = v
		}
		return out
	}
	return !reflect.DeepEqual(strip(old), strip(obj))
}

// shallowCopy copies the top level and metadata, the parts a write modifies
// in place; everything below is shared with the immutable stored version.
func shallowCopy(o map[string]any) map[string]any {
	out := make(map[string]any, len(o))
	for k, v := range o {
		out[k] = v
	}
	md := make(map[string]any, len(metadata(o)))
	for k, v := range metadata(o) {
		md[k] = v
	}
	out["metadata"] = md
	return out
}

func withoutRV(o map[string]any) map[string]any {
	out := shallowCopy(o)
	delete(metadata(out), "resourceVersion")
	delete(metadata(out), "managedFields")
	return out
}

func generationOf(obj map[string]any) int64 {
	switch g := metadata(obj)["generation"].(type) {
	case int64:
		return g
	case float64:
		return int64(g)
	}
	return 0
}

func finalizers(obj map[string]any) []any {
	f, _ := metadata(obj)["finalizers"].([]any)
	return f
}

// randomSuffix is what the apiserver appends to generateName.
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
}
