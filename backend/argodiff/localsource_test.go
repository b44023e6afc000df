package argodiff

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
)

func TestLocalSourceRefusesBeforeFetching(t *testing.T) {
	elsewhere := &kube.Cluster{Context: "prod", Config: &rest.Config{Host: "https://10.0.0.1:6443"}}
	base := func(edit func(spec map[string]any)) map[string]any {
		app := guestbookApp("abc")
		// A repository that does not exist: a refusal must come before any fetch.
		spec := app["spec"].(map[string]any)
		spec["source"].(map[string]any)["repoURL"] = "/nonexistent/repo"
		edit(spec)
		return app
	}
	for _, c := range []struct {
		name string
		app  map[string]any
		want string
	}{
		{"kustomize overrides", base(func(s map[string]any) {
			s["source"].(map[string]any)["kustomize"] = map[string]any{"images": []any{"nginx:1.27"}, "namePrefix": "p-"}
		}), "spec.source.kustomize (images, namePrefix)"},
		{"plugin", base(func(s map[string]any) { s["source"].(map[string]any)["plugin"] = map[string]any{"name": "cdk8s"} }), "plugin"},
		{"a multi-source app's plugin source", base(func(s map[string]any) {
			s["sources"] = []any{map[string]any{"repoURL": "/nonexistent/a", "path": "app"}, map[string]any{"repoURL": "/nonexistent/b", "plugin": map[string]any{"name": "cdk8s"}}}
		}), "plugin"},
		{"another cluster", base(func(s map[string]any) {
			s["destination"] = map[string]any{"server": "https://prod.example.com:6443", "namespace": "default"}
		}), "https://prod.example.com:6443"},
		{"a named cluster", base(func(s map[string]any) { s["destination"] = map[string]any{"name": "prod-eu"} }), "cluster prod-eu"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := (&LocalSource{CacheDir: t.TempDir()}).Diff(context.Background(), c.app, elsewhere)
			if !errors.Is(err, errNotLocal) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want a not-local error naming %q", err, c.want)
			}
		})
	}
}

func TestLocalSourceSaysWhichCommitHoldsAChartItCannotRender(t *testing.T) {
	localrendertest.Use(t)
	repo := localrendertest.NewRepo(t)
	repo.Write(map[string]string{"guestbook/Chart.yaml": "apiVersion: v2\nname: guestbook\nversion: 0.1.0\n" +
		"dependencies:\n- name: redis\n  version: 1.0.0\n  repository: https://charts.example.com\n"})
	commit := repo.Commit("a chart with a dependency not vendored")
	app := guestbookApp(commit)
	app["spec"].(map[string]any)["source"].(map[string]any)["repoURL"] = repo.Dir
	kc := fake.NewClientset()
	kc.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "37"}
	_, err := (&LocalSource{CacheDir: t.TempDir()}).Diff(context.Background(), app, &kube.Cluster{Context: "test", Kube: kc})
	if !errors.Is(err, errNotLocal) {
		t.Fatalf("got %v, want a not-local error", err)
	}
	for _, w := range []string{repo.Dir + "@" + commit[:12], "helm dependency build", "ARGOCD_SERVER"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func TestLocalSourceAcceptsTheClusterByItsAddress(t *testing.T) {
	a := &appSpec{destServer: "https://10.0.0.1:6443/"}
	if err := checkDestination(a, &kube.Cluster{Config: &rest.Config{Host: "https://10.0.0.1:6443"}}); err != nil {
		t.Errorf("same server refused: %v", err)
	}
}

func TestNewSourcePicksTheServerWhenConfigured(t *testing.T) {
	if _, ok := NewSource(Options{Server: NewServerConfig("argocd.example.com", "t")}).(*APISource); !ok {
		t.Error("a configured server did not give the API source")
	}
	if _, ok := NewSource(Options{}).(*LocalSource); !ok {
		t.Error("no server did not give the local source")
	}
}
