package restree

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

func encodeRelease(t *testing.T, rel map[string]any, zip bool) []byte {
	t.Helper()
	raw, _ := json.Marshal(rel)
	if zip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(raw)
		zw.Close()
		raw = buf.Bytes()
	}
	return []byte(base64.StdEncoding.EncodeToString(raw))
}

// A release's objects: the manifest's documents, a namespaced kind without
// a namespace in the release's, a cluster-scoped one in none, empty
// documents skipped; gzipped or not, as Helm's drivers have stored them.
func TestReleaseRefsReadTheManifestsObjects(t *testing.T) {
	manifest := "---\n# Source: c/templates/empty.yaml\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: other\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n"
	for _, zip := range []bool{true, false} {
		refs, rel, err := ReleaseRefs(encodeRelease(t, map[string]any{"name": "shop", "namespace": "web", "version": 4, "manifest": manifest, "config": map[string]any{"pw": "x"},
			"chart": map[string]any{"metadata": map[string]any{"name": "c", "version": "1.4.0"}}}, zip))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range refs {
			got = append(got, r.String())
		}
		want := "ConfigMap/web/settings apps/Deployment/other/api rbac.authorization.k8s.io/ClusterRole//reader"
		if strings.Join(got, " ") != want || rel != (Release{Name: "shop", Namespace: "web", Version: 4, Chart: "c", ChartVersion: "1.4.0", Manifest: manifest}) {
			t.Errorf("gzip %v: %v %+v\nwant %s", zip, got, rel, want)
		}
	}
	if _, _, err := ReleaseRefs([]byte("not base64!")); err == nil {
		t.Error("a release that is not base64 was read")
	}
}
