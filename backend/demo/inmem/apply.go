package inmem

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// applyLocked is server-side apply as far as a dry-run diff needs it: the
// applied configuration merged over the stored object (objects key by key,
// lists and values replaced), a missing object created. Field ownership is
// not tracked, so a field the manager stopped setting stays where a real
// server would remove it.
func (s *Server) applyLocked(res Resource, k objKey, data []byte, subresource string, dryRun bool) (*unstructured.Unstructured, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	var applied map[string]any
	if err := utiljson.Unmarshal(js, &applied); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if applied == nil {
		return nil, apierrors.NewBadRequest("an apply needs an object: the body is empty")
	}
	old, ok := s.objects[k]
	if !ok && subresource != "" {
		return nil, apierrors.NewNotFound(res.GVR.GroupResource(), k.name)
	}
	if !ok {
		if name := nameOf(applied); name != k.name {
			return nil, apierrors.NewBadRequest("the name of the object (" + name + ") does not match the name on the request (" + k.name + ")")
		}
		return s.createLocked(res, k.namespace, applied, dryRun)
	}
	return s.writeLocked(res, k, old, mergeApplied(deepCopy(old), applied), subresource, dryRun)
}

// mergeApplied sets every field of applied on live, objects merged key by key.
func mergeApplied(live, applied map[string]any) map[string]any {
	for key, v := range applied {
		sub, isMap := v.(map[string]any)
		cur, curIsMap := live[key].(map[string]any)
		if isMap && curIsMap {
			live[key] = mergeApplied(cur, sub)
			continue
		}
		live[key] = v
	}
	return live
}
