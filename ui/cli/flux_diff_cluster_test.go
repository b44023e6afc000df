package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/fluxdiff"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// upstreamFluxSourcesCluster is a control plane with the upstream Flux and
// tofu-controller CRDs plus source-controller's GitRepository.
func upstreamFluxSourcesCluster(t *testing.T) *testcluster.Cluster {
	t.Helper()
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	sets := append(testcluster.UpstreamCRDSetsNamed(t, "flux", "tofu-controller-v0.16.5"),
		testcluster.CRDSet{Name: "source-controller", Dir: filepath.Join(root, "backend", "fluxdiff", "testdata", "crds")})
	return testcluster.Start(t, testcluster.Options{CRDSets: sets})
}

// `driftdeck diff kustomization/...` on a real API server exits as kubectl
// diff does: 0 when the build matches what is applied, 1 with differences,
// printed as a unified diff; a Kustomization of a source it cannot build is
// refused (6), naming the source's kind, and one whose build fails exits 7:
// neither is reported as differences.
func TestClusterDiffKustomizationExitCodes(t *testing.T) {
	localrendertest.Use(t)
	repo := localrendertest.NewRepo(t)
	url := repo.ServeHTTP()
	c := upstreamFluxSourcesCluster(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	kc := testcluster.Kubeconfig(t, c.Config(), "test")

	repo.Write(map[string]string{
		"same/app.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same-config\ndata:\n  level: info\n",
		"changed/app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: changed-config\ndata:\n  level: debug\n",
	})
	revision := "main@sha1:" + repo.Commit("config")
	// What kustomize-controller applied: same-config as in git, changed-config
	// before its level moved to debug.
	for name, level := range map[string]string{"same": "info", "changed": "warn"} {
		applyAsController(t, dyn, ns, name, name+"-config", level)
	}
	fluxUnit(t, dyn, fluxdiff.GitRepositories[0], fmt.Sprintf(`{"apiVersion":"source.toolkit.fluxcd.io/v1","kind":"GitRepository","metadata":{"name":"infra","namespace":%q},
		"spec":{"url":%q,"interval":"1m","ref":{"branch":"main"}}}`, ns, url),
		fmt.Sprintf(`{"artifact":{"revision":%q,"path":"x","url":"http://source-controller.invalid/x.tar.gz","digest":"sha256:0","lastUpdateTime":"2026-01-01T00:00:00Z"}}`, revision))
	ks := `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q,"namespace":%q},
		"spec":{"interval":"10m","path":%q,"prune":true,"targetNamespace":%q,"sourceRef":{"kind":%q,"name":"infra"}}}`
	for _, k := range [][3]string{{"same", "./same", "GitRepository"}, {"changed", "./changed", "GitRepository"}, {"from-oci", "./", "OCIRepository"}, {"from-bucket", "./", "Bucket"}, {"no-path", "./nowhere", "GitRepository"}} {
		fluxUnit(t, dyn, flux.Kustomizations[0], fmt.Sprintf(ks, k[0], ns, k[1], ns, k[2]), fmt.Sprintf(`{"lastAttemptedRevision":%q}`, revision))
	}

	for _, tc := range []struct {
		name   string
		code   int
		want   []string
		unwant string
	}{
		{"same", 0, []string{"0 modified, 0 added, 0 removed"}, "level:"},
		{"changed", 1, []string{"-  level: warn", "+  level: debug", "1 modified, 0 added, 0 removed"}, ""},
		{"from-oci", 6, []string{"OCIRepository sources are not diffed", "OCIRepository/" + ns + "/infra"}, ""},
		{"from-bucket", 6, []string{"Bucket sources are not diffed"}, ""},
		{"no-path", exitDiffFailed, []string{"error:", "nowhere"}, " modified, "},
	} {
		code, out, stderr := run(t, "diff", "kustomization/"+ns+"/"+tc.name, "--kubeconfig", kc)
		both := out + stderr
		ok := code == tc.code && (tc.unwant == "" || !strings.Contains(out, tc.unwant))
		for _, w := range tc.want {
			ok = ok && strings.Contains(both, w)
		}
		if !ok {
			t.Errorf("diff kustomization %s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", tc.name, code, tc.code, tc.want, out, stderr)
		}
	}
}

// applyAsController writes a ConfigMap as kustomize-controller applies a
// Kustomization's object: server-side, its field manager, its labels.
func applyAsController(t *testing.T, dyn dynamic.Interface, ns, kustomization, name, level string) {
	t.Helper()
	obj := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q,"labels":{%q:%q,%q:%q}},"data":{"level":%q}}`,
		name, ns, fluxdiff.LabelName, kustomization, fluxdiff.LabelNamespace, ns, level)
	force := true
	if _, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns).Patch(context.Background(), name, types.ApplyPatchType, []byte(obj),
		metav1.PatchOptions{FieldManager: fluxdiff.FieldManager, Force: &force}); err != nil {
		t.Fatal(err)
	}
}
