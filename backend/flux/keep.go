package flux

import (
	"bytes"
	"encoding/json"
)

// Keep is a tree of the fields a slim decoder keeps: a field mapped to nil is
// kept whole, a field mapped to a Keep keeps only those fields of its object
// (or of every object of its list). A value of another type than expected is
// kept whole, so that the adapter reports it as it would from the whole object.
type Keep map[string]Keep

// DecodeKept decodes an object's JSON keeping only the fields of keep. Flux
// objects carry their inventory (every object applied), Helm values and
// Terraform variables and outputs; the adapters read a few dozen fields.
func DecodeKept(data []byte, keep Keep) (map[string]any, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	return keepObject(top, keep)
}

func keepObject(m map[string]json.RawMessage, keep Keep) (map[string]any, error) {
	out := make(map[string]any, len(keep))
	for k, sub := range keep {
		raw, ok := m[k]
		if !ok {
			continue
		}
		v, err := keepValue(raw, sub)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func keepValue(raw json.RawMessage, keep Keep) (any, error) {
	if keep != nil {
		switch first(raw) {
		case '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, err
			}
			return keepObject(m, keep)
		case '[':
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, err
			}
			out := make([]any, len(items))
			for i, it := range items {
				v, err := keepValue(it, keep)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}
	}
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

func first(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// Metadata is what every adapter reads of metadata (not managedFields).
var Metadata = Keep{
	"name": nil, "namespace": nil, "uid": nil, "resourceVersion": nil, "generation": nil,
	"creationTimestamp": nil, "labels": nil, "annotations": nil, "ownerReferences": nil,
}
