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

// Release is what driftdeck reads of a Helm release: never its values,
// which may hold secrets.
type Release struct {
	Name, Namespace     string
	Version             int
	Chart, ChartVersion string
	// Manifest is what the release applied: its rendered objects, hooks
	// and the chart's crds/ left out.
	Manifest string
}

// ReleaseSecret names the Secret Helm's storage driver keeps a release in.
func ReleaseSecret(name string, version int) string {
	return fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, version)
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

// ClusterScoped reports a kind that has no namespace, of those a chart
// commonly renders: Helm installs every other kind without one into the
// release's namespace.
func ClusterScoped(kind string) bool { return clusterScopedKinds[kind] }

// maxRelease bounds a release's decompressed size (Helm's storage Secret
// holds at most 1 MiB compressed).
const maxRelease = 64 << 20

// DecodeRelease reads a Helm release from its storage Secret's
// data.release, as Helm's Secret driver writes it (base64 of the gzipped
// release JSON).
func DecodeRelease(data []byte) (Release, error) {
	raw, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return Release{}, fmt.Errorf("the release is not base64: %w", err)
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return Release{}, err
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, maxRelease)); err != nil {
			return Release{}, fmt.Errorf("the release does not decompress: %w", err)
		}
	}
	var rel struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		Version   int    `json:"version"`
		Manifest  string `json:"manifest"`
		Chart     struct {
			Metadata struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"metadata"`
		} `json:"chart"`
	}
	if err := json.Unmarshal(raw, &rel); err != nil {
		return Release{}, fmt.Errorf("the release is not Helm's JSON: %w", err)
	}
	return Release{Name: rel.Name, Namespace: rel.Namespace, Version: rel.Version,
		Chart: rel.Chart.Metadata.Name, ChartVersion: rel.Chart.Metadata.Version, Manifest: rel.Manifest}, nil
}

// ReleaseRefs reads the objects of a Helm release's manifest from its
// storage Secret's data.release: what the release applied.
func ReleaseRefs(data []byte) ([]Ref, Release, error) {
	r, err := DecodeRelease(data)
	if err != nil {
		return nil, r, err
	}
	var refs []Ref
	for i, doc := range documentSeparator.Split(r.Manifest, -1) {
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
		if ref.Namespace == "" && !ClusterScoped(ref.Kind) {
			ref.Namespace = r.Namespace
		}
		refs = append(refs, ref)
	}
	return refs, r, nil
}
