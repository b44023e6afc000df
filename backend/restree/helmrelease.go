package restree

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// Release is what a Helm release records of itself.
type Release struct {
	Name, Namespace string
	Version         int
}

// documentSeparator splits a release's manifest into its objects.
var documentSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// clusterScopedKinds are the kinds a chart commonly renders without a
// namespace that have none; every other kind without one is in the
// release's namespace, as Helm installs it.
var clusterScopedKinds = map[string]bool{
	"Namespace": true, "ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true,
	"PersistentVolume": true, "StorageClass": true, "PriorityClass": true, "IngressClass": true, "RuntimeClass": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true, "APIService": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true, "CSIDriver": true,
}

// maxRelease bounds a release's decompressed size (Helm's storage Secret
// holds at most 1 MiB compressed).
const maxRelease = 64 << 20

// ReleaseRefs reads the objects of a Helm release from its storage
// Secret's data.release, as Helm's Secret driver writes it (base64 of the
// gzipped release JSON): the objects of its manifest, what the release
// applied. Nothing else of the release (its values, which may hold
// secrets) is kept.
func ReleaseRefs(data []byte) ([]Ref, Release, error) {
	raw, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return nil, Release{}, fmt.Errorf("the release is not base64: %w", err)
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, Release{}, err
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, maxRelease)); err != nil {
			return nil, Release{}, fmt.Errorf("the release does not decompress: %w", err)
		}
	}
	var rel struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		Version   int    `json:"version"`
		Manifest  string `json:"manifest"`
	}
	if err := json.Unmarshal(raw, &rel); err != nil {
		return nil, Release{}, fmt.Errorf("the release is not Helm's JSON: %w", err)
	}
	r := Release{Name: rel.Name, Namespace: rel.Namespace, Version: rel.Version}
	var refs []Ref
	for i, doc := range documentSeparator.Split(rel.Manifest, -1) {
		var obj struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name, Namespace string
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return refs, r, fmt.Errorf("object %d of the manifest: %w", i, err)
		}
		if obj.Kind == "" || obj.Metadata.Name == "" {
			continue // a template that rendered nothing, or only comments
		}
		ref := Ref{Kind: obj.Kind, Name: obj.Metadata.Name, Namespace: obj.Metadata.Namespace}
		if g, _, ok := strings.Cut(obj.APIVersion, "/"); ok {
			ref.Group = g
		}
		if ref.Namespace == "" && !clusterScopedKinds[ref.Kind] {
			ref.Namespace = rel.Namespace
		}
		refs = append(refs, ref)
	}
	return refs, r, nil
}
