package argodiff

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The manifests of the test app, as committed; none names a namespace, so
// Argo CD's namespace defaulting is exercised.
const (
	deploymentV1 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
`
	serviceV1 = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 80
`
	configV1 = `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  key: one
  old: going-away
`
	configV2 = `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  key: two
`
	retired = `apiVersion: v1
kind: ConfigMap
metadata:
  name: retired
data:
  a: b
`
	added = `apiVersion: v1
kind: ConfigMap
metadata:
  name: added
data:
  new: "yes"
`
	widget = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: gizmo
spec:
  size: 3
`
	secretOld, secretNew = "hunter2-old-value", "correct-horse-battery"
)

func secretManifest(password string) string {
	return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-secret\nstringData:\n  password: " + password + "\n"
}

func connect(t *testing.T) (*kube.Cluster, string) {
	t.Helper()
	tc := testcluster.Shared(t)
	ns := tc.Namespace(t)
	c, err := kube.NewCluster("test", tc.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	return c, ns
}

var gvrs = map[string]schema.GroupVersionResource{
	"Deployment": {Group: "apps", Version: "v1", Resource: "deployments"},
	"Service":    {Version: "v1", Resource: "services"},
	"ConfigMap":  {Version: "v1", Resource: "configmaps"},
	"Secret":     {Version: "v1", Resource: "secrets"},
}

// syncLive puts the manifests into the cluster the way Argo CD's sync does:
// a server-side apply as argocd-controller, or (ssa false) kubectl's
// client-side apply, which records the last-applied configuration. Each
// object also gets the tracking annotation Argo CD adds.
func syncLive(t *testing.T, c *kube.Cluster, ns string, ssa bool, manifests ...string) {
	t.Helper()
	ctx := context.Background()
	for _, m := range manifests {
		objs, err := diff.Parse([]byte(m))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: objs[0]}
		u.SetNamespace(ns)
		setAnnotation(u, annotationTrackingID, "web:"+u.GroupVersionKind().Group+"/"+u.GetKind()+":"+ns+"/"+u.GetName())
		ri := c.Dynamic.Resource(gvrs[u.GetKind()]).Namespace(ns)
		if ssa {
			data, _ := json.Marshal(u.Object)
			force := true
			if _, err := ri.Patch(ctx, u.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: argoFieldManager, Force: &force}); err != nil {
				t.Fatalf("applying %s: %v", u.GetName(), err)
			}
			continue
		}
		applied, _ := json.Marshal(u.Object)
		setAnnotation(u, annotationLastApplied, string(applied))
		if _, err := ri.Create(ctx, u, metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"}); err != nil {
			t.Fatalf("creating %s: %v", u.GetName(), err)
		}
	}
}

type tracked struct{ group, version, kind, name string }

func localApp(repo, path, ns, syncRevision, targetRevision string, ssa bool, resources ...tracked) map[string]any {
	var res []any
	for _, r := range resources {
		res = append(res, map[string]any{"group": r.group, "version": r.version, "kind": r.kind, "namespace": ns, "name": r.name, "status": "Synced"})
	}
	app := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "web", "namespace": "argocd"},
		"spec": map[string]any{
			"project":     "default",
			"source":      map[string]any{"repoURL": repo, "path": path, "targetRevision": targetRevision},
			"destination": map[string]any{"server": inClusterServer, "namespace": ns},
		},
		"status": map[string]any{"sync": map[string]any{"status": "OutOfSync", "revision": syncRevision}, "resources": res},
	}
	if ssa {
		app["spec"].(map[string]any)["syncPolicy"] = map[string]any{"syncOptions": []any{"CreateNamespace=true", "ServerSideApply=true"}}
	}
	return app
}

func changeSummary(r *diff.Report) map[string]string {
	out := map[string]string{}
	for _, o := range r.Objects {
		s := o.Change.String()
		if o.Change == diff.Modified {
			var paths []string
			for _, f := range o.Fields {
				paths = append(paths, f.Path+" "+f.Change.String())
			}
			s += ": " + strings.Join(paths, ", ")
		}
		out[o.Key.Kind+"/"+o.Key.Name] = s
	}
	return out
}

func diffApp(t *testing.T, c *kube.Cluster, app map[string]any) *Result {
	t.Helper()
	localrendertest.Use(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Now()
	res, err := (&LocalSource{CacheDir: t.TempDir()}).Diff(ctx, app, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local diff of %d objects took %v", len(res.Report.Objects), time.Since(t0).Round(time.Millisecond))
	return res
}

func TestClusterLocalDiffPlainManifests(t *testing.T) {
	for _, mode := range []struct {
		name string
		ssa  bool
	}{{"server-side apply", true}, {"client-side apply", false}} {
		t.Run(mode.name, func(t *testing.T) {
			c, ns := connect(t)
			repo := localrendertest.NewRepo(t)
			repo.Write(map[string]string{
				"app/deployment.yaml": deploymentV1, "app/service.yaml": serviceV1, "app/config.yaml": configV1,
				"app/retired.yaml": retired, "app/secret.yaml": secretManifest(secretOld),
				"README.md": "not a manifest, not in the path\n",
			})
			first := repo.Commit("first")
			syncLive(t, c, ns, mode.ssa, deploymentV1, serviceV1, configV1, retired, secretManifest(secretOld))
			resources := []tracked{
				{"", "v1", "ConfigMap", "retired"}, {"", "v1", "ConfigMap", "web-config"}, {"", "v1", "Secret", "web-secret"},
				{"", "v1", "Service", "web"}, {"apps", "v1", "Deployment", "web"},
			}

			// What was synced diffs clean: the defaults the API server added
			// (strategy, clusterIP, imagePullPolicy, ...) are no noise.
			res := diffApp(t, c, localApp(repo.Dir, "app", ns, first, "main", mode.ssa, resources...))
			r := res.Report
			if r.Unchanged != 5 || r.Added+r.Removed+r.Modified != 0 {
				var out bytes.Buffer
				r.WriteUnified(&out, 3)
				t.Fatalf("the synced revision shows changes %v:\n%s", changeSummary(r), out.String())
			}

			repo.Write(map[string]string{
				"app/deployment.yaml": strings.Replace(deploymentV1, "replicas: 1", "replicas: 3", 1),
				"app/config.yaml":     configV2, "app/retired.yaml": "", "app/added.yaml": added, "app/widget.yaml": widget,
				"app/secret.yaml": secretManifest(secretNew),
			})
			second := repo.Commit("second")
			app := localApp(repo.Dir, "app", ns, second, "main", mode.ssa, resources...)
			res = diffApp(t, c, app)
			want := map[string]string{
				"ConfigMap/web-config": "modified: data.key modified, data.old removed",
				"ConfigMap/added":      "added",
				"ConfigMap/retired":    "removed",
				"Deployment/web":       "modified: spec.replicas modified",
				"Secret/web-secret":    "modified: data.password modified",
				"Service/web":          "unchanged",
				"Widget/gizmo":         "added",
			}
			got := changeSummary(res.Report)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %q, want %q", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("objects %v, want %v", got, want)
			}
			for _, o := range res.Report.Objects {
				if o.Key.Kind != "Widget" && o.Key.Namespace != ns {
					t.Errorf("%s is in namespace %q, want the destination %q", o.Key, o.Key.Namespace, ns)
				}
			}
			if res.Revision != second || res.SyncRevision != second || res.Stale(app) {
				t.Errorf("revision %s, sync revision %s; want %s", res.Revision, res.SyncRevision, second)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "Widget gizmo") {
				t.Errorf("warnings %q, want one about the unserved Widget kind", res.Warnings)
			}

			// No value of the Secret appears anywhere in the result.
			var out bytes.Buffer
			if err := res.Report.WriteUnified(&out, 3); err != nil {
				t.Fatal(err)
			}
			text := out.String() + strings.Join(res.Warnings, "\n")
			for _, o := range res.Report.Objects {
				text += o.Live + o.Desired
			}
			for _, secret := range []string{secretOld, secretNew} {
				if strings.Contains(text, secret) || strings.Contains(text, base64.StdEncoding.EncodeToString([]byte(secret))) {
					t.Errorf("the diff shows a Secret value")
				}
			}
			if !strings.Contains(out.String(), "-  replicas: 1") || !strings.Contains(out.String(), "+  replicas: 3") {
				t.Errorf("unified diff lacks the replica change:\n%s", out.String())
			}

			// It was a dry run: nothing changed in the cluster.
			live, err := c.Dynamic.Resource(gvrs["Deployment"]).Namespace(ns).Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n, _, _ := unstructured.NestedInt64(live.Object, "spec", "replicas"); n != 1 {
				t.Errorf("the live Deployment has %d replicas after the diff, want 1", n)
			}
			if _, err := c.Dynamic.Resource(gvrs["ConfigMap"]).Namespace(ns).Get(context.Background(), "added", metav1.GetOptions{}); err == nil {
				t.Error("the diff created the added ConfigMap")
			}
		})
	}
}

func TestClusterLocalDiffKustomizeOverlay(t *testing.T) {
	c, ns := connect(t)
	repo := localrendertest.NewRepo(t)
	overlay := func(replicas string) string {
		return "resources:\n- ../../base\nnamePrefix: prod-\nlabels:\n- pairs: {tier: frontend}\nreplicas:\n- name: web\n  count: " + replicas + "\n"
	}
	repo.Write(map[string]string{
		"base/kustomization.yaml":          "resources:\n- deployment.yaml\n- service.yaml\n",
		"base/deployment.yaml":             deploymentV1,
		"base/service.yaml":                serviceV1,
		"overlays/prod/kustomization.yaml": overlay("2"),
	})
	repo.Commit("first")
	// The objects as the overlay renders them, synced.
	prodDeployment := strings.NewReplacer("name: web\nspec", "name: prod-web\n  labels: {tier: frontend}\nspec", "replicas: 1", "replicas: 2").Replace(deploymentV1)
	prodService := strings.Replace(serviceV1, "name: web\nspec", "name: prod-web\n  labels: {tier: frontend}\nspec", 1)
	syncLive(t, c, ns, false, prodDeployment, prodService)

	repo.Write(map[string]string{"overlays/prod/kustomization.yaml": overlay("5")})
	second := repo.Commit("scale up")

	// No sync revision yet: the target revision (a branch) is rendered, and
	// the result names the commit it resolved to.
	app := localApp(repo.Dir, "overlays/prod", ns, "", "main", false,
		tracked{"apps", "v1", "Deployment", "prod-web"}, tracked{"", "v1", "Service", "prod-web"})
	res := diffApp(t, c, app)
	got := changeSummary(res.Report)
	want := map[string]string{"Deployment/prod-web": "modified: spec.replicas modified", "Service/prod-web": "unchanged"}
	if !mapsEqual(got, want) {
		var out bytes.Buffer
		res.Report.WriteUnified(&out, 3)
		t.Errorf("changes %v, want %v\n%s", got, want, out.String())
	}
	if res.Revision != second || res.SyncRevision != "" {
		t.Errorf("revision %q sync revision %q, want %s and none", res.Revision, res.SyncRevision, second)
	}

	// With the replica count ignored (as for an autoscaled Deployment),
	// nothing is left to sync.
	app["spec"].(map[string]any)["ignoreDifferences"] = []any{
		map[string]any{"group": "apps", "kind": "Deployment", "jsonPointers": []any{"/spec/replicas"}},
	}
	if got := changeSummary(diffApp(t, c, app).Report); got["Deployment/prod-web"] != "unchanged" {
		t.Errorf("with spec.replicas ignored: %v", got)
	}
}

func TestClusterLocalDiffShowsARefusedDryRun(t *testing.T) {
	c, ns := connect(t)
	repo := localrendertest.NewRepo(t)
	// A Deployment's selector cannot change: the sync would fail, and the
	// diff says so instead of hiding it.
	changed := strings.ReplaceAll(deploymentV1, "{app: web}", "{app: web2}")
	repo.Write(map[string]string{"app/deployment.yaml": changed})
	rev := repo.Commit("new selector")
	syncLive(t, c, ns, true, deploymentV1)
	res := diffApp(t, c, localApp(repo.Dir, "app", ns, rev, "main", true, tracked{"apps", "v1", "Deployment", "web"}))
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "dry run refused") || !strings.Contains(res.Warnings[0], "immutable") {
		t.Errorf("warnings %q, want the refused dry run", res.Warnings)
	}
	if res.Report.Modified != 1 {
		t.Errorf("changes %v", changeSummary(res.Report))
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
