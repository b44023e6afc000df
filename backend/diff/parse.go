package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Parse reads Kubernetes objects from JSON or YAML: one object, a stream of
// YAML documents, or a List (whose items are returned). Empty documents are
// skipped. Numbers keep their full precision.
func Parse(data []byte) ([]map[string]any, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []map[string]any
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj, useNumber); err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if obj == nil {
			continue
		}
		objs = append(objs, listItems(obj)...)
	}
}

func useNumber(d *json.Decoder) *json.Decoder {
	d.UseNumber()
	return d
}

// listItems unwraps a v1 List (as `kubectl get -o yaml` prints) into its items.
func listItems(obj map[string]any) []map[string]any {
	kind, _ := obj["kind"].(string)
	items, ok := obj["items"].([]any)
	if !ok || !strings.HasSuffix(kind, "List") {
		return []map[string]any{obj}
	}
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
