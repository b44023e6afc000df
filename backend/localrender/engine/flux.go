package engine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// buildFlux produces the objects kustomize-controller would apply from the
// checkout at root: the kustomization at spec.path (generated from its
// manifests when it has none, as the controller does), with the
// Kustomization's own namespace, name prefix and suffix, patches, images,
// components and common metadata laid over it.
func buildFlux(root string, raw map[string]any) ([]map[string]any, error) {
	spec := objread.New(raw)
	path := spec.Str("path")
	dir := filepath.Join(root, "src", filepath.FromSlash(path))
	src := filepath.Join(root, "src")
	if rel, err := filepath.Rel(src, dir); err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("spec.path %q leaves the repository", path)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("spec.path %q is not a directory in the repository", path)
	}
	if !hasKustomization(dir) {
		if err := generate(dir); err != nil {
			return nil, err
		}
	}
	wrap := filepath.Join(root, "overlay")
	if err := os.MkdirAll(wrap, 0o700); err != nil {
		return nil, err
	}
	relDir, _ := filepath.Rel(wrap, dir)
	k := map[string]any{
		"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
		"resources": []any{filepath.ToSlash(relDir)},
	}
	for from, to := range map[string]string{"targetNamespace": "namespace", "namePrefix": "namePrefix", "nameSuffix": "nameSuffix"} {
		if v := spec.Str(from); v != "" {
			k[to] = v
		}
	}
	for _, f := range []string{"patches", "images"} {
		if v, ok := raw[f]; ok {
			k[f] = v
		}
	}
	if comps := spec.Slice("components"); len(comps) > 0 {
		var out []any
		for _, c := range comps {
			s, _ := c.(string)
			out = append(out, filepath.ToSlash(filepath.Join(relDir, s)))
		}
		k["components"] = out
	}
	if l := spec.StringMap("commonMetadata", "labels"); len(l) > 0 {
		k["labels"] = []any{map[string]any{"pairs": l, "includeSelectors": false}}
	}
	if a := spec.StringMap("commonMetadata", "annotations"); len(a) > 0 {
		k["commonAnnotations"] = a
	}
	data, err := yaml.Marshal(k)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(wrap, "kustomization.yaml"), data, 0o600); err != nil {
		return nil, err
	}
	return buildKustomization(wrap)
}

func hasKustomization(dir string) bool {
	for _, n := range kustomizationNames {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// generate writes the kustomization kustomize-controller generates for a
// path without one: every manifest below it, and every directory with a
// kustomization of its own (whose files that kustomization then owns).
func generate(dir string) error {
	var resources []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if p != dir && hasKustomization(p) {
				resources = append(resources, filepath.ToSlash(rel))
				return filepath.SkipDir
			}
			if strings.HasPrefix(d.Name(), ".") && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		ext := strings.ToLower(filepath.Ext(p))
		if ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		objs, err := diff.Parse(data)
		if err != nil || len(objs) == 0 || objs[0]["kind"] == nil {
			return nil // not a Kubernetes manifest
		}
		resources = append(resources, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(resources)
	data, err := yaml.Marshal(map[string]any{"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": resources})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "kustomization.yaml"), data, 0o600)
}
