package fluxdiff

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

const (
	appConfig = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  key: %s\n  region: ${region:=eu-west-1}\n"
	oldConfig = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\ndata:\n  a: b\n"
	token     = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  token: do-not-show-me\n"
)

// A Kustomization's diff on a real API server: built from its GitRepository
// at the attempted revision (a path without kustomization.yaml, a target
// namespace, a postBuild variable), dry-run as kustomize-controller applies,
// the object dropped from git shown as pruned and the new Secret masked.
func TestClusterKustomizationDiff(t *testing.T) {
	repo := localrendertest.NewRepo(t)
	url := repo.ServeHTTP()
	tc := testcluster.Shared(t)
	tc.InstallCRDs(t, append(testcluster.UpstreamCRDSetsNamed(t, "flux"), testcluster.CRDSet{Name: "source-controller", Dir: "testdata/crds"})...)
	ns := tc.Namespace(t)
	c, err := kube.NewCluster("test", tc.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	repo.Write(map[string]string{"deploy/app.yaml": strings.Replace(appConfig, "%s", "one", 1), "deploy/old.yaml": oldConfig, "README.md": "not a manifest\n"})
	repo.Commit("first")
	// What the controller applied from the first commit.
	for _, m := range []map[string]any{
		configMap(ns, "app-config", map[string]any{"key": "one", "region": "eu-central-1"}),
		configMap(ns, "old", map[string]any{"a": "b"}),
	} {
		data, _ := json.Marshal(m)
		force := true
		if _, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns).
			Patch(ctx, m["metadata"].(map[string]any)["name"].(string), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: FieldManager, Force: &force}); err != nil {
			t.Fatal(err)
		}
	}
	repo.Write(map[string]string{"deploy/app.yaml": strings.Replace(appConfig, "%s", "two", 1), "deploy/old.yaml": "", "deploy/token.yaml": token})
	head := repo.Commit("second")
	revision := "main@sha1:" + head

	create(t, c, GitRepositories[0], ns, map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": "infra"},
		"spec":     map[string]any{"url": url, "interval": "1m", "ref": map[string]any{"branch": "main"}},
	}, map[string]any{"artifact": map[string]any{"revision": revision, "path": "x", "url": "http://source-controller.invalid/x.tar.gz", "digest": "sha256:0", "lastUpdateTime": "2025-01-01T00:00:00Z"}})
	create(t, c, flux.Kustomizations[0], ns, map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": "apps"},
		"spec": map[string]any{
			"interval": "5m", "path": "./deploy", "prune": true, "targetNamespace": ns,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "infra"},
			"postBuild": map[string]any{"substitute": map[string]any{"region": "eu-central-1"}},
		},
	}, map[string]any{
		"lastAttemptedRevision": revision,
		"inventory": map[string]any{"entries": []any{
			map[string]any{"id": ns + "_app-config__ConfigMap", "v": "v1"},
			map[string]any{"id": ns + "_old__ConfigMap", "v": "v1"},
		}},
	})

	localrendertest.Use(t)
	d := &Differ{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, CacheDir: t.TempDir()}
	res, err := d.Diff(ctx, model.Key{Context: "test", Engine: model.EngineKustomization, Namespace: ns, Name: "apps"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision != head || res.SyncRevision != revision {
		t.Errorf("built %s (bound to %s), want %s", res.Revision, res.SyncRevision, revision)
	}
	r := res.Report
	if r.Modified != 1 || r.Added != 1 || r.Removed != 1 {
		for _, o := range r.Objects {
			t.Logf("%s %s\n%s", o.Key, o.Change, o.Desired)
		}
		t.Fatalf("%d modified, %d added, %d removed; want app-config modified, token added, old pruned (warnings %v)", r.Modified, r.Added, r.Removed, res.Warnings)
	}
	for _, o := range r.Objects {
		switch o.Key.Name {
		case "app-config":
			// Only the key changed: the substituted region and the
			// controller's labels match what it applied.
			if len(o.Fields) != 1 || o.Fields[0].Path != "data.key" {
				t.Errorf("app-config changes %v, want only data.key\n%s", o.Fields, o.Desired)
			}
		case "token":
			if strings.Contains(o.Desired, "do-not-show-me") || o.Key.Namespace != ns {
				t.Errorf("the new Secret shows its value or has the wrong namespace:\n%s", o.Desired)
			}
		case "old":
			if o.Change != diff.Removed {
				t.Errorf("old: %v, want removed (pruned)", o.Change)
			}
		}
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
}

func configMap(ns, name string, data map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{LabelName: "apps", LabelNamespace: ns}},
		"data":     data,
	}
}

func create(t *testing.T, c *kube.Cluster, gvr schema.GroupVersionResource, ns string, obj, status map[string]any) {
	t.Helper()
	ri := c.Dynamic.Resource(gvr).Namespace(ns)
	got, err := ri.Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Object["status"] = status
	if _, err := ri.UpdateStatus(context.Background(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
