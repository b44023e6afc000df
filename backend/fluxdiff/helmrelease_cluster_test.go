package fluxdiff

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// webChart's templates; version 1.1.0 adds a port to the Service. Each
// object has an app label the post-renderer below extends.
func webChart(version string) map[string]string {
	ports := "  - {name: http, port: 80}\n"
	if version != "1.0.0" {
		ports += "  - {name: https, port: 443}\n"
	}
	return map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: web\nversion: " + version + "\n",
		"values.yaml": "greeting: hello\nreplicas: 1\nauth: {password: changeme}\n",
		"templates/config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  labels:
    app: web
data:
  greeting: {{ .Values.greeting | quote }}
  replicas: {{ .Values.replicas | quote }}
`,
		"templates/secret.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-auth
  labels:
    app: web
stringData:
  password: {{ .Values.auth.password | quote }}
`,
		"templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-web
  labels:
    app: web
spec:
  selector: {app: web}
  ports:
` + ports,
		"templates/hook.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-hook
  annotations: {"helm.sh/hook": pre-upgrade}
`,
	}
}

// helmCLI runs the real helm binary (DRIFTDECK_HELM) against the test
// cluster, with its own homes.
type helmCLI struct {
	t          *testing.T
	bin        string
	env        []string
	kubeconfig string
}

func newHelmCLI(t *testing.T, tc *testcluster.Cluster) *helmCLI {
	t.Helper()
	bin := testcluster.Tool(t, "DRIFTDECK_HELM", "helm")
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := testcluster.WriteKubeconfig(tc.Config(), "test", kc); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(dir, "cache"), "HELM_CONFIG_HOME="+filepath.Join(dir, "config"),
		"HELM_DATA_HOME="+filepath.Join(dir, "data"), "KUBECONFIG="+kc)
	return &helmCLI{t: t, bin: bin, env: env, kubeconfig: kc}
}

func (h *helmCLI) run(args ...string) string {
	h.t.Helper()
	cmd := exec.Command(h.bin, args...)
	cmd.Env = h.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// chartRepository packages the chart's versions with helm and serves them
// with the index `helm repo index` writes.
func (h *helmCLI) chartRepository(versions ...string) string {
	h.t.Helper()
	repo := h.t.TempDir()
	for _, v := range versions {
		src := filepath.Join(h.t.TempDir(), "web")
		for name, content := range webChart(v) {
			path := filepath.Join(src, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				h.t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				h.t.Fatal(err)
			}
		}
		h.run("package", src, "--destination", repo)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(repo)))
	h.t.Cleanup(srv.Close)
	h.run("repo", "index", repo, "--url", srv.URL)
	return srv.URL
}

// originLabels is a post-renderer that labels the objects as
// helm-controller's does: the release is then what helm-controller makes.
func originLabels(t *testing.T, name, ns string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "origin-labels")
	script := fmt.Sprintf("#!/bin/sh\nexec sed -e 's|^    app: web$|    app: web\\n    %s: %s\\n    %s: %s|'\n", LabelHelmReleaseName, name, LabelHelmReleaseNamespace, ns)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func releaseHistory(ns string, version int64, chartVersion string) map[string]any {
	return map[string]any{
		"name": "shop", "namespace": ns, "version": version, "status": "deployed", "chartName": "web", "chartVersion": chartVersion,
		"digest": "sha256:0", "configDigest": "sha256:1", "firstDeployed": "2026-12-01T10:00:00Z", "lastDeployed": "2026-12-05T10:00:00Z",
	}
}

// A HelmRelease's diff on a real API server, against a release the real
// helm made: the chart at the version source-controller resolved, with
// the values merged from a ConfigMap, a Secret (at a targetPath) and
// spec.values, shows what the upgrade changes, the Secret masked; after
// the real helm upgrades to that chart with those values, nothing differs.
func TestClusterHelmReleaseDiffAgainstARealHelmRelease(t *testing.T) {
	localrendertest.Use(t)
	tc := testcluster.Shared(t)
	tc.InstallCRDs(t, append(testcluster.UpstreamCRDSetsNamed(t, "flux"), testcluster.CRDSet{Name: "source-controller", Dir: "testdata/crds"})...)
	helm := newHelmCLI(t, tc)
	ns := tc.Namespace(t)
	c, err := kube.NewCluster("test", tc.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	url := helm.chartRepository("1.0.0", "1.1.0", "1.2.0")
	post := originLabels(t, "shop", ns)
	helm.run("install", "shop", "web", "--repo", url, "--version", "1.0.0", "--namespace", ns,
		"--set", "auth.password=first-pw-1f2e", "--post-renderer", post)

	if _, err := c.Kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-values"},
		Data: map[string]string{"values.yaml": "greeting: hi from a ConfigMap\nreplicas: 2\n"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-credentials"},
		Data: map[string][]byte{"password": []byte("second-pw-9c8d")}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	create(t, c, sourceKind("HelmRepository")[0], ns, map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository", "metadata": map[string]any{"name": "charts"},
		"spec": map[string]any{"url": url, "interval": "10m"},
	}, map[string]any{})
	// source-controller resolved "*" to 1.1.0 when it last looked (1.2.0
	// came out since): that is what helm-controller installs.
	create(t, c, sourceKind("HelmChart")[0], ns, map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart", "metadata": map[string]any{"name": ns + "-shop"},
		"spec": map[string]any{"chart": "web", "version": "*", "interval": "10m", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}},
	}, map[string]any{"artifact": map[string]any{"revision": "1.1.0", "path": "x", "url": "http://source-controller.invalid/x.tgz", "digest": "sha256:0", "lastUpdateTime": "2026-12-05T00:00:00Z"}})
	hrStatus := map[string]any{"storageNamespace": ns, "lastAttemptedRevision": "1.0.0", "history": []any{releaseHistory(ns, 1, "1.0.0")}}
	create(t, c, flux.HelmReleases[0], ns, map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": map[string]any{"name": "shop"},
		"spec": map[string]any{
			"interval": "10m",
			"chart":    map[string]any{"spec": map[string]any{"chart": "web", "version": "*", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}}},
			"valuesFrom": []any{
				map[string]any{"kind": "ConfigMap", "name": "shop-values"},
				map[string]any{"kind": "Secret", "name": "shop-credentials", "valuesKey": "password", "targetPath": "auth.password"},
				map[string]any{"kind": "ConfigMap", "name": "not-there", "optional": true},
			},
			"values": map[string]any{"replicas": 3},
		},
	}, hrStatus)

	d := &Differ{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, CacheDir: t.TempDir()}
	key := model.Key{Context: "test", Engine: model.EngineHelmRelease, Namespace: ns, Name: "shop"}
	res, err := d.Diff(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision != "1.1.0" || !strings.Contains(res.Source, "chart web 1.1.0") || !strings.Contains(res.Source, "Helm release shop v1 (chart web 1.0.0)") {
		t.Errorf("rendered %s from %q, want chart web 1.1.0 against release v1", res.Revision, res.Source)
	}
	changes := map[string][]string{}
	for _, o := range res.Report.Objects {
		if o.Change == diff.Unchanged {
			continue
		}
		var paths []string
		for _, f := range o.Fields {
			paths = append(paths, f.Path)
		}
		sort.Strings(paths)
		changes[o.Key.Kind+"/"+o.Key.Name] = paths
		for _, secret := range []string{"first-pw-1f2e", "second-pw-9c8d"} {
			if strings.Contains(o.Live+o.Desired, secret) {
				t.Errorf("%s shows a Secret value:\n%s\n%s", o.Key.Name, o.Live, o.Desired)
			}
		}
	}
	want := map[string]string{
		"ConfigMap/shop-config": "data.greeting data.replicas",
		"Secret/shop-auth":      "data.password",
		"Service/shop-web":      "spec.ports[1]",
	}
	if len(changes) != len(want) {
		t.Errorf("changes %v, want %v", changes, want)
	}
	for k, paths := range want {
		if got := strings.Join(changes[k], " "); got != paths {
			t.Errorf("%s changes %q, want %q", k, got, paths)
		}
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "not-there") {
		t.Errorf("warnings %q, want the optional ConfigMap skipped", res.Warnings)
	}

	// The real helm upgrades with what helm-controller would merge: the
	// release then holds exactly the render.
	merged := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(merged, []byte("greeting: hi from a ConfigMap\nreplicas: 3\nauth: {password: second-pw-9c8d}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	helm.run("upgrade", "shop", "web", "--repo", url, "--version", "1.1.0", "--namespace", ns, "--values", merged, "--post-renderer", post)
	hr, err := c.Dynamic.Resource(flux.HelmReleases[0]).Namespace(ns).Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hr.Object["status"] = map[string]any{"storageNamespace": ns, "lastAttemptedRevision": "1.1.0", "history": []any{releaseHistory(ns, 2, "1.1.0")}}
	if _, err := c.Dynamic.Resource(flux.HelmReleases[0]).Namespace(ns).UpdateStatus(ctx, hr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = d.Diff(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Report; r.Modified+r.Added+r.Removed != 0 || r.Unchanged != 3 {
		var left []string
		for _, o := range r.Objects {
			if o.Change != diff.Unchanged {
				left = append(left, fmt.Sprintf("%s %v %s\n%s", o.Key.Name, o.Change, o.Live, o.Desired))
			}
		}
		t.Errorf("after helm upgraded to the same chart and values: %d modified, %d added, %d removed, %d unchanged\n%s",
			r.Modified, r.Added, r.Removed, r.Unchanged, strings.Join(left, "\n"))
	}
}
