package realcontrollers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
)

// shopChart shows each input of a render: values from the chart, a values
// file beside it and one from the repository root, parameters, the
// Application's values object, the build environment and the cluster's
// versions.
func shopChart(replicas string) map[string]string {
	return map[string]string{
		"shop/Chart.yaml":  "apiVersion: v2\nname: shop\nversion: 0.3.0\n",
		"shop/values.yaml": "greeting: hello\nreplicas: 1\nsize: small\n",
		"shop/prod.yaml":   "replicas: " + replicas + "\n",
		"shop/templates/config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  labels: {chart: {{ .Chart.Name }}-{{ .Chart.Version }}}
data:
  greeting: {{ .Values.greeting | quote }}
  replicas: {{ .Values.replicas | quote }}
  size: {{ .Values.size | quote }}
  region: {{ .Values.region | quote }}
  revision: {{ .Values.revision | quote }}
  tags: {{ .Values.tags | quote }}
  namespace: {{ .Release.Namespace | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  deployments: {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" | quote }}
  applications: {{ .Capabilities.APIVersions.Has "argoproj.io/v1alpha1/Application" | quote }}
`,
		"shop/templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector: {app: shop}
  ports:
  - port: 80
`,
		"shop/templates/NOTES.txt": "Thanks for installing {{ .Release.Name }}.\n",
		"env/shared.yaml":          "region: eu-west-1\n",
	}
}

// repoServerManifests asks the real argocd-server for the Application's
// manifests: what its repo-server generated.
func repoServerManifests(t *testing.T, srv *testargocd.Server, name string) []map[string]any {
	t.Helper()
	token, err := srv.AdminToken()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+srv.Addr+"/api/v1/applications/"+name+"/manifests?appNamespace="+testargocd.Namespace, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Manifests []string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("manifests of %s: %s %v", name, resp.Status, err)
	}
	var out []map[string]any
	for _, m := range body.Manifests {
		var o map[string]any
		if err := json.Unmarshal([]byte(m), &o); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// comparable turns objects into JSON-typed values sorted by kind and name,
// without the tracking annotation the repo-server adds to each.
func comparable(t *testing.T, objs []map[string]any) []map[string]any {
	t.Helper()
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		data, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]any
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(c, "metadata", "annotations", "argocd.argoproj.io/tracking-id")
		if ann, _, _ := unstructured.NestedMap(c, "metadata", "annotations"); len(ann) == 0 {
			unstructured.RemoveNestedField(c, "metadata", "annotations")
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		ki, kj := diff.KeyOf(out[i]), diff.KeyOf(out[j])
		return ki.Kind+"/"+ki.Name < kj.Kind+"/"+kj.Name
	})
	return out
}

// helmArgo is the real Argo CD with its API server, for a test of Helm
// sources rendered locally.
func helmArgo(t *testing.T) (*env, *testargocd.Server) {
	t.Helper()
	localrendertest.Use(t)
	e := realArgo(t)
	e.argo.RequireHelm(t)
	srv, err := e.argo.StartServer()
	if err != nil {
		t.Fatalf("argocd-server: %v", err)
	}
	return e, srv
}

func TestClusterRealArgoHelmSourceRendersLocallyAsTheRepoServer(t *testing.T) {
	e, srv := helmArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("shop chart", shopChart("2"))
	e.createApp("shop", map[string]any{
		"project": "default",
		"source": map[string]any{"repoURL": repo.URL(), "path": "shop", "targetRevision": "main",
			"helm": map[string]any{
				"valueFiles":              []any{"prod.yaml", "/env/shared.yaml", "missing.yaml"},
				"ignoreMissingValueFiles": true,
				"valuesObject":            map[string]any{"size": "large"},
				"parameters": []any{
					map[string]any{"name": "revision", "value": "$ARGOCD_APP_REVISION_SHORT"},
					map[string]any{"name": "tags", "value": "a,b", "forceString": true},
				},
			}},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": e.dest},
	})
	ctx := context.Background()
	e.waitFor("the controller's first comparison of the chart", func() (bool, string) {
		a := e.get("shop")
		return str(a, "status", "sync", "revision") == v1 && str(a, "status", "sourceType") == "Helm",
			str(a, "status", "sync", "status") + " " + str(a, "status", "sourceType") + " " + fmt.Sprint(a["status"])
	})

	// The render equals the repo-server's manifests, object for object.
	local := &argodiff.LocalSource{CacheDir: t.TempDir()}
	t0 := time.Now()
	rendered, err := local.Render(ctx, e.get("shop"), e.cluster)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local Helm render took %v", time.Since(t0).Round(time.Millisecond))
	got, want := comparable(t, rendered.Objects), comparable(t, repoServerManifests(t, srv, "shop"))
	if rendered.Commit != v1 || !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("local render at %s differs from the repo-server's at %s:\nlocal:\n%s\nrepo-server:\n%s", rendered.Commit, v1, gj, wj)
	}
	if len(want) != 2 {
		t.Fatalf("the repo-server generated %d objects, want the ConfigMap and the Service", len(want))
	}
	data, _, _ := unstructured.NestedStringMap(got[0], "data")
	for k, v := range map[string]string{"replicas": "2", "size": "large", "region": "eu-west-1", "revision": v1[:7],
		"tags": "a,b", "namespace": e.dest, "deployments": "true", "applications": "true"} {
		if data[k] != v {
			t.Errorf("rendered ConfigMap %s = %q, want %q (%v)", k, data[k], v, data)
		}
	}

	// Synced, nothing differs; a change of values in git is what the
	// controller finds OutOfSync too.
	e.do(actions.Request{Kind: actions.Sync, Key: e.key("shop"), Reason: "deploy the chart", Revision: v1})
	e.synced("shop", v1)
	res, err := local.Diff(ctx, e.get("shop"), e.cluster)
	if err != nil {
		t.Fatal(err)
	}
	if c := changed(res.Report); len(c) != 0 {
		t.Errorf("after the sync the local diff still changes %v", c)
	}
	v2 := repo.Commit("more replicas", map[string]string{"shop/prod.yaml": "replicas: 5\n"})
	before := str(e.get("shop"), "status", "reconciledAt")
	time.Sleep(1100 * time.Millisecond) // reconciledAt has a resolution of seconds
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key("shop")})
	e.waitFor("the controller's comparison at v2", func() (bool, string) {
		a := e.get("shop")
		return str(a, "status", "sync", "revision") == v2 && str(a, "status", "reconciledAt") != before, str(a, "status", "sync", "revision")
	})
	app := e.get("shop")
	res, err = local.Diff(ctx, app, e.cluster)
	if err != nil {
		t.Fatal(err)
	}
	if controller, mine := outOfSync(app), changed(res.Report); strings.Join(controller, " ") != strings.Join(mine, " ") || len(mine) != 1 {
		t.Errorf("the controller finds %v OutOfSync, the local diff changes %v (want the ConfigMap only)", controller, mine)
	}
}

// prodValues is the values repository's file (every value the chart
// prints set: a ConfigMap key rendered null is dropped by the API server,
// and the controller would find it OutOfSync forever).
func prodValues(size string) string {
	return "size: " + size + "\ngreeting: hello from the values repository\nregion: eu-north-1\nrevision: pinned\ntags: web\n"
}

// A multi-source Application: the chart of one repository with a value file
// of a second (a ref source), beside a plain directory. The local render
// equals the repo-server's manifests for every source; a change in the
// values repository alone is what the controller finds OutOfSync too.
func TestClusterRealArgoMultiSourceRendersLocallyAsTheRepoServer(t *testing.T) {
	e, srv := helmArgo(t)
	charts, values := testargocd.NewRepo(t), testargocd.NewRepo(t)
	files := shopChart("2")
	files["extras/settings.yaml"] = testargocd.ConfigMap("extras", "v1")
	chartsHead := charts.Commit("chart and extras", files)
	valuesHead := values.Commit("prod values", map[string]string{"envs/prod.yaml": prodValues("medium")})
	e.createApp("multi", map[string]any{
		"project": "default",
		"sources": []any{
			map[string]any{"repoURL": charts.URL(), "path": "shop", "targetRevision": "main",
				"helm": map[string]any{"valueFiles": []any{"$values/envs/prod.yaml"}}},
			map[string]any{"repoURL": values.URL(), "targetRevision": "main", "ref": "values"},
			map[string]any{"repoURL": charts.URL(), "path": "extras", "targetRevision": "main"},
		},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": e.dest},
	})
	ctx := context.Background()
	revisions := func() string { return argodiff.RevisionOf(e.get("multi")) }
	want := strings.Join([]string{chartsHead, valuesHead, chartsHead}, ",")
	e.waitFor("the controller's first comparison of the three sources", func() (bool, string) { return revisions() == want, revisions() })

	local := &argodiff.LocalSource{CacheDir: t.TempDir()}
	rendered, err := local.Render(ctx, e.get("multi"), e.cluster)
	if err != nil {
		t.Fatal(err)
	}
	got, fromServer := comparable(t, rendered.Objects), comparable(t, repoServerManifests(t, srv, "multi"))
	if !reflect.DeepEqual(got, fromServer) || len(got) != 3 {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(fromServer, "", " ")
		t.Fatalf("local render differs from the repo-server's (want the chart's ConfigMap and Service and the extras ConfigMap):\nlocal:\n%s\nrepo-server:\n%s", gj, wj)
	}
	data, _, _ := unstructured.NestedStringMap(got[1], "data") // ConfigMap/extras sorts first
	if data["size"] != "medium" || data["greeting"] != "hello from the values repository" {
		t.Errorf("the chart did not read the ref source's values: %v", data)
	}
	if rendered.Commit != want {
		t.Errorf("rendered at %s, the controller compared %s", rendered.Commit, want)
	}

	e.do(actions.Request{Kind: actions.Sync, Key: e.key("multi"), Reason: "deploy", Revision: want})
	e.waitFor("the sync of the three sources", func() (bool, string) {
		a := e.get("multi")
		return str(a, "status", "operationState", "phase") == "Succeeded" && str(a, "status", "sync", "status") == "Synced",
			str(a, "status", "operationState", "phase") + " " + str(a, "status", "sync", "status") + fmt.Sprint(outOfSync(a))
	})
	valuesNext := values.Commit("bigger", map[string]string{"envs/prod.yaml": prodValues("large")})
	before := str(e.get("multi"), "status", "reconciledAt")
	time.Sleep(1100 * time.Millisecond) // reconciledAt has a resolution of seconds
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key("multi")})
	next := strings.Join([]string{chartsHead, valuesNext, chartsHead}, ",")
	// The hard refresh's own comparison: the controller's periodic one can
	// reach the new revisions first, and a CI run on a loaded machine read
	// that one (nothing OutOfSync) while the hard refresh was still pending.
	e.waitFor("the hard refresh's comparison at the new values", func() (bool, string) {
		o := e.get("multi")
		pending := refreshPending(o)
		return !pending && revisions() == next && str(o, "status", "reconciledAt") != before, revisions()
	})
	app := e.get("multi")
	res, err := local.Diff(ctx, app, e.cluster)
	if err != nil {
		t.Fatal(err)
	}
	if controller, mine := outOfSync(app), changed(res.Report); strings.Join(controller, " ") != strings.Join(mine, " ") || len(mine) != 1 {
		t.Errorf("the controller finds %v OutOfSync, the local diff changes %v (want the chart's ConfigMap only)", controller, mine)
	}
	if !strings.Contains(res.Source, "; ") || res.Revision != next {
		t.Errorf("source %q revision %s: want each source named and the three revisions", res.Source, res.Revision)
	}
}
