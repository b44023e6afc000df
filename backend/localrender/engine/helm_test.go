package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/localrender"
)

// webChart is a chart that shows each input of a render in its output.
var webChart = map[string]string{
	"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 1.2.0\nappVersion: \"2.0\"\n",
	"charts/web/values.yaml": "replicas: 1\nimage: web:1.0\nnote: from the chart\nports: [80]\n",
	"charts/web/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
  namespace: {{ .Release.Namespace }}
  annotations:
    kube: {{ .Capabilities.KubeVersion.Version | quote }}
    has-widgets: {{ .Capabilities.APIVersions.Has "example.com/v1/Widget" | quote }}
    note: {{ .Values.note | quote }}
    file: {{ .Values.file | default "" | quote }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
      - name: web
        image: {{ .Values.image }}
        ports:
        {{- range .Values.ports }}
        - containerPort: {{ . }}
        {{- end }}
`,
	"charts/web/templates/hook.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations: {"helm.sh/hook": pre-upgrade}
`,
	"charts/web/templates/test.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-test
  annotations: {"helm.sh/hook": test}
`,
	"charts/web/templates/NOTES.txt": "not a manifest\n",
	"charts/web/crds/widget.yaml":    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n",
	"charts/web/prod.yaml":           "replicas: 3\n",
	"env/shared.yaml":                "note: from the repository root\n",
	"env/cert.pem":                   "CERT",
}

func deployment(t *testing.T, objs []map[string]any) map[string]any {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == "Deployment" {
			return o
		}
	}
	t.Fatalf("no Deployment in %v", names(objs))
	return nil
}

func field(o map[string]any, path ...string) any {
	var cur any = o
	for _, p := range path {
		m, _ := cur.(map[string]any)
		cur = m[p]
	}
	return cur
}

func TestHelmTemplateAppliesEachSettingAsTheRepoServerDoes(t *testing.T) {
	root := writeFiles(t, webChart)
	h := localrender.HelmChart{
		ReleaseName: "shop", Namespace: "prod",
		KubeVersion: "1.37", APIVersions: []string{"example.com/v1", "example.com/v1/Widget"},
		ValueFiles: []string{"prod.yaml", "/env/shared.yaml"},
		Values:     "image: web:$ARGOCD_APP_NAME\n",
		Parameters: []localrender.HelmParameter{
			{Name: "image", Value: "web:${ARGOCD_APP_REVISION_SHORT}"},
			{Name: "ports", Value: "{80,443}"},
		},
		FileParameters: []localrender.HelmParameter{{Name: "file", Value: "/env/cert.pem"}},
		IncludeCRDs:    true, SkipTests: true,
		Env: withRevision(map[string]string{"ARGOCD_APP_NAME": "shop"}, "0123456789abcdef"),
	}
	objs, err := render(context.Background(), root, localrender.ArgoSource{Path: "charts/web", Helm: &h})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(names(objs), " "), "CustomResourceDefinition/widgets.example.com Deployment/shop-web Job/shop-migrate"; got != want {
		t.Errorf("rendered %s, want %s (CRDs first, hooks last, no test hook, no NOTES)", got, want)
	}
	d := deployment(t, objs)
	for path, want := range map[string]string{
		"metadata.namespace":               "prod",
		"metadata.annotations.kube":        "v1.37",
		"metadata.annotations.has-widgets": "true",
		"metadata.annotations.note":        "from the repository root",
		"metadata.annotations.file":        "CERT",
		"spec.replicas":                    "3",
	} {
		if got := field(d, strings.Split(path, ".")...); fmt.Sprint(got) != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	container := field(d, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	if container["image"] != "web:0123456" {
		t.Errorf("image %v: the parameter (with the revision substituted) should win over the values", container["image"])
	}
	if ports := container["ports"].([]any); len(ports) != 2 {
		t.Errorf("ports %v: a {a,b} parameter is a list", ports)
	}
}

func TestHelmTemplateDefaults(t *testing.T) {
	root := writeFiles(t, webChart)
	objs, err := render(context.Background(), root, localrender.ArgoSource{Path: "charts/web"})
	if err != nil {
		t.Fatal(err)
	}
	// helm template without flags: release "release-name", namespace
	// "default", no CRDs, the test hook kept.
	if got, want := strings.Join(names(objs), " "), "Deployment/release-name-web Job/release-name-migrate Pod/release-name-test"; got != want {
		t.Errorf("rendered %s, want %s", got, want)
	}
	if ns := field(deployment(t, objs), "metadata", "namespace"); ns != "default" {
		t.Errorf("namespace %v, want default", ns)
	}
}

func TestHelmValueFiles(t *testing.T) {
	root := writeFiles(t, webChart)
	for _, c := range []struct {
		name   string
		h      localrender.HelmChart
		errHas string
	}{
		{"a missing file", localrender.HelmChart{ValueFiles: []string{"missing.yaml"}}, "values file missing.yaml does not exist"},
		{"a missing file ignored", localrender.HelmChart{ValueFiles: []string{"missing.yaml"}, IgnoreMissingValueFiles: true}, ""},
		{"a file outside the checkout", localrender.HelmChart{ValueFiles: []string{"../../../etc/passwd"}}, "leaves the repository"},
		{"a value that is no YAML", localrender.HelmChart{Values: "replicas: [\n"}, "reading the values"},
	} {
		_, err := render(context.Background(), root, localrender.ArgoSource{Path: "charts/web", Helm: &c.h})
		switch {
		case c.errHas == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.errHas)
		}
	}
}

func TestHelmChartWithMissingDependenciesIsUnsupported(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: redis\n  version: 1.0.0\n  repository: https://charts.example.com\n",
	})
	_, err := render(context.Background(), root, localrender.ArgoSource{Path: "app"})
	var u *localrender.UnsupportedError
	if !errors.As(err, &u) || !strings.Contains(u.What, "helm dependency build") {
		t.Errorf("got %v, want unsupported naming helm dependency build", err)
	}
}

func TestEscapeSetValue(t *testing.T) {
	for in, want := range map[string]string{
		"a,b":    `a\,b`,
		`a\,b`:   `a\,b`,
		"{a,b}":  "{a,b}",
		"plain":  "plain",
		"x,y,,z": `x\,y\,\,z`,
	} {
		if got := escapeSetValue(in); got != want {
			t.Errorf("escapeSetValue(%q) = %q, want %q", in, got, want)
		}
	}
}
