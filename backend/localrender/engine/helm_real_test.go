package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/repo"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/localrender"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The render equals the real `helm template` run with the flags the
// repo-server builds from the same settings.
func TestHelmTemplateEqualsTheRealHelmBinary(t *testing.T) {
	bin := testcluster.Tool(t, "DRIFTDECK_HELM", "helm")
	root := writeFiles(t, webChart)
	h := localrender.HelmChart{
		ReleaseName: "shop", Namespace: "prod", KubeVersion: "1.37",
		APIVersions: []string{"example.com/v1", "example.com/v1/Widget"},
		ValueFiles:  []string{"prod.yaml", "/env/shared.yaml"},
		Values:      "image: web:2.0\n",
		Parameters:  []localrender.HelmParameter{{Name: "ports", Value: "{80,443}"}, {Name: "note", Value: "a,b", ForceString: true}},
		IncludeCRDs: true, SkipTests: true,
	}
	got, err := render(context.Background(), root, localrender.ArgoSource{Path: "charts/web", Helm: &h})
	if err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(extra, []byte(h.Values), 0o600); err != nil {
		t.Fatal(err)
	}
	chartDir := filepath.Join(root, "charts", "web")
	cmd := exec.Command(bin, "template", chartDir, "--name-template", "shop", "--namespace", "prod",
		"--kube-version", "1.37", "--set", "ports={80,443}", "--set-string", `note=a\,b`,
		"--values", filepath.Join(chartDir, "prod.yaml"), "--values", filepath.Join(root, "env", "shared.yaml"),
		"--values", extra, "--api-versions", "example.com/v1", "--api-versions", "example.com/v1/Widget",
		"--include-crds", "--skip-tests")
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	want, err := diff.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("local render differs from helm template:\nlocal: %v\nhelm:  %v", got, want)
	}
	if len(want) != 3 {
		t.Errorf("helm rendered %v, want the CRD, the Deployment and the hook", names(want))
	}
}

// helmRepository serves the web chart at 1.2.0 and 1.3.0 as a Helm
// repository (index.yaml and the archives).
func helmRepository(t *testing.T) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	src := writeFiles(t, webChart)
	ch, err := loader.Load(filepath.Join(src, "charts", "web"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.2.0", "1.3.0"} {
		ch.Metadata.Version = v
		if _, err := chartutil.Save(ch, dir); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	index, err := repo.IndexDirectory(dir, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := index.WriteFile(filepath.Join(dir, "index.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestHelmRepositoryChartResolvesTheVersionAsHelmPull(t *testing.T) {
	srv := helmRepository(t)
	ctx := context.Background()
	for _, c := range []struct{ version, want string }{
		{"1.2.0", "1.2.0"}, {"~1.2", "1.2.0"}, {"", "1.3.0"}, {"*", "1.3.0"},
	} {
		pulled, objs, err := renderRepositoryChart(ctx, localrender.Request{Repo: srv.URL, Revision: c.version}, localrender.HelmChart{Chart: "web", ReleaseName: "shop"})
		if err != nil {
			t.Fatalf("%q: %v", c.version, err)
		}
		if pulled != c.want || len(objs) == 0 {
			t.Errorf("version %q: pulled %s with %d objects, want %s", c.version, pulled, len(objs), c.want)
		}
	}
	if _, _, err := renderRepositoryChart(ctx, localrender.Request{Repo: srv.URL, Revision: "2.0.0"}, localrender.HelmChart{Chart: "web"}); err == nil || !strings.Contains(err.Error(), "chart web 2.0.0") {
		t.Errorf("a version the repository lacks: %v", err)
	}
	// A chart from a Helm repository has no repository files to read.
	_, _, err := renderRepositoryChart(ctx, localrender.Request{Repo: srv.URL, Revision: "1.2.0"}, localrender.HelmChart{Chart: "web", ValueFiles: []string{"prod.yaml"}})
	if err == nil || !strings.Contains(err.Error(), "no files of its own") {
		t.Errorf("a value file of a repository chart: %v", err)
	}
}

func TestHelmRepositoryThatNeedsCredentialsIsUnsupported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, _, err := renderRepositoryChart(context.Background(), localrender.Request{Repo: srv.URL, Revision: "1.0.0"}, localrender.HelmChart{Chart: "web"})
	var u *localrender.UnsupportedError
	if err == nil || !strings.Contains(err.Error(), "needs credentials") || !errors.As(err, &u) {
		t.Errorf("got %v, want unsupported: needs credentials", err)
	}
}

// A multi-source Application's chart reads a value file of its ref source:
// "$values/envs/prod.yaml" is that file of the ref's repository at its
// revision; a ref the Application lacks is an error.
func TestHelmValueFileOfARefSource(t *testing.T) {
	srv := helmRepository(t)
	values := localrendertest.NewRepo(t)
	values.Write(map[string]string{"envs/prod.yaml": "replicas: 7\nnote: from the values repository\n"})
	commit := values.Commit("prod values")
	values.Write(map[string]string{"envs/prod.yaml": "replicas: 9\n"})
	values.Commit("later values, not the revision asked for")
	req := localrender.Request{Repo: srv.URL, Revision: "1.2.0", CacheDir: t.TempDir()}
	h := localrender.HelmChart{Chart: "web", ReleaseName: "shop", ValueFiles: []string{"$values/envs/prod.yaml"},
		Refs: map[string]localrender.RefSource{"values": {Repo: values.Dir, Revision: commit}}}
	_, objs, err := renderRepositoryChart(context.Background(), req, h)
	if err != nil {
		t.Fatal(err)
	}
	d := deployment(t, objs)
	if r, note := field(d, "spec", "replicas"), field(d, "metadata", "annotations", "note"); fmt.Sprint(r) != "7" || note != "from the values repository" {
		t.Errorf("replicas %v, note %v: want the ref source's file at its revision", r, note)
	}
	h.ValueFiles = []string{"$other/envs/prod.yaml"}
	if _, _, err := renderRepositoryChart(context.Background(), req, h); err == nil || !strings.Contains(err.Error(), "$other names no ref source") {
		t.Errorf("a ref the Application lacks: %v", err)
	}
}
