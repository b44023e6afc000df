package livetree

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree/restreetest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// releaseManifest is what a chart of the shop rendered: the live
// workload's objects, and a ConfigMap nobody created.
const releaseManifest = `---
# Source: shop/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data: {a: b}
---
# Source: shop/templates/svc.yaml
apiVersion: v1
kind: Service
metadata:
  name: api
spec: {ports: [{port: 80}]}
---
# Source: shop/templates/deploy.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
---
# Source: shop/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: shop-reader
`

// helmReleaseSecret is a release as Helm's Secret driver stores it: the
// release JSON, gzipped, base64 (the Secret's own encoding on top).
func helmReleaseSecret(t *testing.T, ns, name string, version int, manifest string, values map[string]any) *corev1.Secret {
	t.Helper()
	rel, _ := json.Marshal(map[string]any{"name": name, "namespace": ns, "version": version, "manifest": manifest,
		"config": values, "info": map[string]any{"status": "deployed"}})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(rel)
	zw.Close()
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "sh.helm.release.v1." + name + ".v" + itoa(version), Namespace: ns,
			Labels: map[string]string{"owner": "helm", "name": name, "status": "deployed", "version": itoa(version)}},
		Type: "helm.sh/release.v1",
		Data: map[string][]byte{"release": []byte(base64.StdEncoding.EncodeToString(buf.Bytes()))},
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A HelmRelease's tree is its current release's manifest, read from the
// release's storage Secret on a real API server, with the live objects
// they own and their health; the values the release also stores are
// never shown.
func TestClusterHelmReleaseTreeIsItsReleasesManifest(t *testing.T) {
	c := testcluster.Shared(t)
	c.InstallCRDs(t, testcluster.UpstreamCRDSetsNamed(t, "flux")...)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	ns := c.Namespace(t)
	restreetest.LiveWorkload(t, kc.Kube, ns, "")
	ctx := context.Background()
	if _, err := kc.Kube.CoreV1().Secrets(ns).Create(ctx, helmReleaseSecret(t, ns, "shop", 3, releaseManifest, map[string]any{"dbPassword": "hunter2-in-values"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ri := kc.Dynamic.Resource(flux.HelmReleases[0]).Namespace(ns)
	hr, err := ri.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": map[string]any{"name": "shop", "namespace": ns},
		"spec": map[string]any{"interval": "10m", "chart": map[string]any{"spec": map[string]any{"chart": "shop", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}}}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hr.Object["status"] = map[string]any{"storageNamespace": ns, "history": []any{map[string]any{
		"name": "shop", "namespace": ns, "version": int64(3), "status": "deployed", "chartName": "shop", "chartVersion": "1.4.0",
		"digest": "sha256:0", "configDigest": "sha256:1", "firstDeployed": "2026-12-01T10:00:00Z", "lastDeployed": "2026-12-05T10:00:00Z"}}}
	if _, err := ri.UpdateStatus(ctx, hr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	key := model.Key{Context: "test", Engine: model.EngineHelmRelease, Namespace: ns, Name: "shop"}
	tr, err := (&Reader{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}).Read(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	// ClusterRoles and ConfigMaps are not read: their health is not told.
	want := `ClusterRole/shop-reader 
ConfigMap/settings 
Deployment/api Progressing
  ReplicaSet/api-7f9c Progressing
    Pod/api-7f9c-crash Degraded
    Pod/api-7f9c-ready Healthy
Service/api Healthy
`
	if got := outline(tr); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s\nnotes: %q", got, want, tr.Notes)
	}
	if !strings.Contains(tr.Recorded, "Helm release shop v3 (Secret "+ns+"/sh.helm.release.v1.shop.v3)") {
		t.Errorf("recorded in %q", tr.Recorded)
	}
	if b, _ := json.Marshal(tr); strings.Contains(string(b), "hunter2") {
		t.Error("the tree holds a value of the release")
	}

	// A reader that may not read Secrets still gets the tree's frame, and why.
	if err := kc.Kube.CoreV1().Secrets(ns).Delete(ctx, "sh.helm.release.v1.shop.v3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err = (&Reader{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}).Read(ctx, key)
	if err != nil || len(tr.Roots) != 0 || len(tr.Notes) != 1 || !strings.Contains(tr.Notes[0], "not found") {
		t.Errorf("without the release's Secret: %v, notes %q", err, tr.Notes)
	}
}
