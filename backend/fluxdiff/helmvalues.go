package fluxdiff

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// releaseValues merges a HelmRelease's values as helm-controller does:
// each spec.valuesFrom in order (a ConfigMap's or Secret's key, whole or
// at a targetPath), then spec.values over them. The values go to the
// render only: Secret values are never shown (a Secret the chart renders
// is masked in the diff).
func releaseValues(ctx context.Context, c *kube.Cluster, r *objread.Reader, ns string) (map[string]any, []string, error) {
	values := map[string]any{}
	var warnings []string
	for _, ref := range r.Objects("spec", "valuesFrom") {
		kind, name := ref.Str("kind"), ref.Str("name")
		key := firstOf(ref.Str("valuesKey"), "values.yaml")
		optional, _ := ref.Bool("optional")
		data, found, err := valuesData(ctx, c, kind, ns, name, key)
		switch {
		case err != nil:
			return nil, nil, fmt.Errorf("spec.valuesFrom %s/%s: %w", kind, name, err)
		case !found && optional:
			warnings = append(warnings, fmt.Sprintf("spec.valuesFrom %s/%s key %s does not exist (optional): skipped", kind, name, key))
			continue
		case !found:
			return nil, nil, fmt.Errorf("spec.valuesFrom %s/%s has no key %s: helm-controller fails the release too", kind, name, key)
		}
		if path := ref.Str("targetPath"); path != "" {
			if err := setPath(values, path, data); err != nil {
				return nil, nil, fmt.Errorf("spec.valuesFrom %s/%s: %w", kind, name, err)
			}
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(data), &m); err != nil {
			return nil, nil, fmt.Errorf("spec.valuesFrom %s/%s key %s is not YAML values: %w", kind, name, key, err)
		}
		mergeValues(values, m)
	}
	mergeValues(values, r.Map("spec", "values"))
	return values, warnings, nil
}

func valuesData(ctx context.Context, c *kube.Cluster, kind, ns, name, key string) (string, bool, error) {
	switch kind {
	case "ConfigMap":
		cm, err := c.Kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		if kube.ObjectMissing(err) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		v, ok := cm.Data[key]
		return v, ok, nil
	case "Secret":
		s, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if kube.ObjectMissing(err) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		v, ok := s.Data[key]
		return string(v), ok, nil
	}
	return "", false, fmt.Errorf("kind %q: helm-controller reads values from ConfigMaps and Secrets only", kind)
}

// mergeValues merges src over dst as Helm merges values: maps deeply,
// anything else replaced.
func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// setPath sets a dotted targetPath ("a.b.c") to a value typed as --set
// types it (integers, booleans, null, else a string). Paths with list
// indexes or escapes are refused rather than guessed.
func setPath(values map[string]any, path, value string) error {
	if strings.ContainsAny(path, `[]\=,`) {
		return fmt.Errorf("targetPath %q is not rendered locally (only dotted paths are)", path)
	}
	parts := strings.Split(path, ".")
	cur := values
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = typed(value)
	return nil
}

func typed(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && (v == "0" || !strings.HasPrefix(v, "0")) {
		return n
	}
	return v
}
