package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/localrender"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func names(objs []map[string]any) []string {
	var out []string
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		out = append(out, o["kind"].(string)+"/"+md["name"].(string))
	}
	slices.Sort(out)
	return out
}

func configMap(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  k: v\n"
}

func TestRenderDirectory(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"apps/web/a.yaml":             configMap("a") + "---\n" + configMap("a2"),
		"apps/web/b.json":             `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`,
		"apps/web/notes.txt":          configMap("ignored-extension"),
		"apps/web/values.yaml":        "replicas: 3\nimage: nginx\n", // not a manifest: skipped
		"apps/web/skipped.yaml":       "# +argocd:skip-file-rendering\n" + configMap("skipped"),
		"apps/web/sub/c.yml":          configMap("c"),
		"apps/web/sub/deeper/d.yaml":  configMap("d"),
		"apps/web/sub/deeper/e.yaml":  configMap("e"),
		"apps/other/not-in-path.yaml": configMap("other"),
	})
	for _, c := range []struct {
		name string
		src  localrender.ArgoSource
		want []string
	}{
		{"top level only", localrender.ArgoSource{Path: "apps/web"}, []string{"ConfigMap/a", "ConfigMap/a2", "ConfigMap/b"}},
		{"recurse", localrender.ArgoSource{Path: "apps/web", Recurse: true},
			[]string{"ConfigMap/a", "ConfigMap/a2", "ConfigMap/b", "ConfigMap/c", "ConfigMap/d", "ConfigMap/e"}},
		{"include", localrender.ArgoSource{Path: "apps/web", Recurse: true, Include: "{*.yml,sub/deeper/d.yaml}"}, []string{"ConfigMap/c", "ConfigMap/d"}},
		{"exclude", localrender.ArgoSource{Path: "apps/web", Recurse: true, Exclude: "sub/*"}, []string{"ConfigMap/a", "ConfigMap/a2", "ConfigMap/b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := render(context.Background(), root, c.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(objs); !slices.Equal(got, c.want) {
				t.Errorf("rendered %v, want %v", got, c.want)
			}
		})
	}
}

func TestRenderDirectoryRejectsABrokenManifest(t *testing.T) {
	root := writeFiles(t, map[string]string{"app/bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n"})
	if _, err := render(context.Background(), root, localrender.ArgoSource{Path: "app"}); err == nil || !strings.Contains(err.Error(), "app/bad.yaml") {
		t.Errorf("broken manifest: %v", err)
	}
}

func TestRenderKustomizeOverlay(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- deploy.yaml\n",
		"base/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
`,
		"overlays/prod/kustomization.yaml": `resources:
- ../../base
namePrefix: prod-
replicas:
- name: web
  count: 4
`,
	})
	objs, err := render(context.Background(), root, localrender.ArgoSource{Path: "overlays/prod"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(objs); !slices.Equal(got, []string{"Deployment/prod-web"}) {
		t.Fatalf("rendered %v", got)
	}
	spec := objs[0]["spec"].(map[string]any)
	if r := spec["replicas"]; r == nil || r.(interface{ String() string }).String() != "4" {
		t.Errorf("replicas %v, want 4 from the overlay", r)
	}
}

func TestRenderRefusesJsonnetFiles(t *testing.T) {
	root := writeFiles(t, map[string]string{"jsonnet/app.jsonnet": "{}"})
	_, err := render(context.Background(), root, localrender.ArgoSource{Path: "jsonnet"})
	var u *localrender.UnsupportedError
	if want := "a Jsonnet file in a directory source"; !errors.As(err, &u) || u.What != want {
		t.Errorf("got %v, want %q as unsupported", err, want)
	}
}

func TestRenderStaysInsideTheRepository(t *testing.T) {
	root := writeFiles(t, map[string]string{"app/cm.yaml": configMap("a")})
	if _, err := render(context.Background(), root, localrender.ArgoSource{Path: "../"}); err == nil {
		t.Error("a path above the repository was rendered")
	}
	outside := writeFiles(t, map[string]string{"secret.yaml": configMap("outside")})
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(root, "app", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := render(context.Background(), root, localrender.ArgoSource{Path: "app"}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("a symbolic link out of the repository: %v", err)
	}
}

func TestCompileGlob(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"*.yaml", "a.yaml", true},
		{"*.yaml", "sub/a.yaml", true}, // * crosses directories, as in Argo CD
		{"*.yaml", "a.yml", false},
		{"{a,b}.yaml", "b.yaml", true},
		{"{a,b}.yaml", "c.yaml", false},
		{"file?.json", "file1.json", true},
		{"[ab]*.yaml", "b1.yaml", true},
		{"[!ab]*.yaml", "b1.yaml", false},
		{"a.b", "axb", false}, // dots are literal
	} {
		re, err := compileGlob(c.glob)
		if err != nil {
			t.Fatalf("%q: %v", c.glob, err)
		}
		if got := re.MatchString(c.path); got != c.want {
			t.Errorf("%q matching %q = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
	for _, bad := range []string{"{a,b", "a}", "[ab"} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}
