package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/restree/restreetest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Two real control planes: the management cluster holds the Application,
// the destination (another apiserver, at another address) its Deployment,
// ReplicaSet and Pods. With the destination's server mapped to a context in
// the config file, `resources` shows the destination's live objects with
// their health and `logs` reads the destination's pods, named with
// --resource or the operation's hook Job (through
// that apiserver's pods/log proxy from a kubelet-like test server, as envtest
// has no kubelet). Unmapped, both say so, and neither shows the management
// cluster's objects of the same namespace and names.
func TestClusterResourceTreeAndLogsOfAnApplicationOnAnotherCluster(t *testing.T) {
	mgmt, dest := testcluster.Shared(t), testcluster.SharedNewestUpstream(t)
	isolate(t)
	kubelet := dest.FakeKubelet(t)
	appNS, ns := mgmt.Namespace(t), dest.Namespace(t)
	restreetest.LiveWorkload(t, dest.Kube(t), ns, kubelet.Node)
	kubelet.SetLog(ns, "api-7f9c-ready", "api", "listening on :8080 (destination)\n", nil)
	kubelet.SetLog(ns, "migrate-x7k2p", "api", "applying migration 0042 (destination)\n", nil)
	// The Application names the server as the rest config has it, with a
	// trailing slash; the config file and the notes without.
	server := strings.TrimSuffix(dest.Config().Host, "/")
	restreetest.CreateApplicationTo(t, dynamic.NewForConfigOrDie(mgmt.Config()), appNS, ns, server+"/")
	decoyOnManagement(t, mgmt, ns)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := testcluster.WriteKubeconfigContexts(kc, "mgmt", map[string]*rest.Config{"mgmt": mgmt.Config(), "prod": dest.Config()}); err != nil {
		t.Fatal(err)
	}
	unit := "mgmt:argocd/" + appNS + "/shop"
	both := []string{"--kubeconfig", kc, "--context", "mgmt,prod"}

	// Unmapped: the tree is status.resources only, says why and how to map
	// it, and lists nothing live (the management cluster's pods least of all).
	code, stdout, stderr := run(t, append([]string{"resources", unit}, both...)...)
	if code != 0 {
		t.Fatalf("unmapped: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "status.resources only") || !strings.Contains(stderr, "the destination "+server+" is not a connected context") ||
		!strings.Contains(stderr, "destinations: [{server: "+server+", context: <kubeconfig context>}]") {
		t.Errorf("unmapped: the note must name the destination and how to map it:\n%s", stderr)
	}
	if strings.Contains(stdout, "ReplicaSet") || strings.Contains(stdout, "Pod/") || strings.Contains(stdout, "decoy") {
		t.Errorf("unmapped: live objects shown:\n%s", stdout)
	}
	for _, args := range [][]string{{"logs", unit, "--resource", "pod/api-7f9c-ready"}, {"logs", unit}} {
		code, stdout, stderr = run(t, append(args, both...)...)
		if code != exitUnreachable || !strings.Contains(stderr, "deploys to "+server) || stdout != "" {
			t.Errorf("unmapped %v: exit %d (want %d)\nstdout: %s\nstderr: %s", args, code, exitUnreachable, stdout, stderr)
		}
	}

	// Mapped in the config file: the destination's live objects.
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "driftdeck")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("destinations:\n- server: "+server+"\n  context: prod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, append([]string{"resources", unit, "-o", "json"}, both...)...)
	var doc struct {
		Destination string       `json:"destination"`
		LiveRead    bool         `json:"liveRead"`
		Notes       []string     `json:"notes"`
		Resources   []treeRecord `json:"resources"`
		Hooks       []treeRecord `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); code != 0 || err != nil {
		t.Fatalf("mapped: exit %d, %v: %s\n%s", code, err, stdout, stderr)
	}
	if !doc.LiveRead || doc.Destination != "prod ("+server+")" || len(doc.Notes) != 0 {
		t.Errorf("mapped: live %v, destination %q, notes %q", doc.LiveRead, doc.Destination, doc.Notes)
	}
	got := map[string]string{}
	var walk func(depth string, rs []treeRecord)
	walk = func(depth string, rs []treeRecord) {
		for _, r := range rs {
			got[depth+r.Resource] = r.Health
			walk(depth+"  ", r.Children)
		}
	}
	walk("", doc.Resources)
	walk("hook ", doc.Hooks)
	for res, health := range map[string]string{
		"apps/Deployment/" + ns + "/api":        "Progressing",
		"  apps/ReplicaSet/" + ns + "/api-7f9c": "Progressing",
		"    Pod/" + ns + "/api-7f9c-ready":     "Healthy",
		"    Pod/" + ns + "/api-7f9c-crash":     "Degraded",
		"Service/" + ns + "/api":                "Healthy",
		"hook   Pod/" + ns + "/migrate-x7k2p":   "Progressing",
		"hook batch/Job/" + ns + "/migrate":     "Progressing",
		"ConfigMap/" + ns + "/settings":         "Missing",
	} {
		if got[res] != health {
			t.Errorf("mapped: %q is %q, want %q (tree %v)", res, got[res], health, got)
		}
	}
	if len(got) != 14 {
		t.Errorf("mapped: %d resources, want 14 (the management cluster's decoys must not show): %v", len(got), got)
	}

	code, stdout, stderr = run(t, append([]string{"logs", unit, "--resource", "pod/api-7f9c-ready"}, both...)...)
	if code != 0 || stdout != "listening on :8080 (destination)\n" || !strings.Contains(stderr, "pod/"+ns+"/api-7f9c-ready, container api") {
		t.Errorf("mapped logs: exit %d\nstdout: %q\nstderr: %s", code, stdout, stderr)
	}
	if _, ok := kubelet.LastRequest(ns, "api-7f9c-ready"); !ok {
		t.Error("the destination's kubelet was not asked for the log")
	}
	// Without --resource: the running operation's hook Job, on the destination.
	code, stdout, stderr = run(t, append([]string{"logs", unit}, both...)...)
	if code != 0 || stdout != "applying migration 0042 (destination)\n" || !strings.Contains(stderr, "pod/"+ns+"/migrate-x7k2p, container api: pod of PreSync hook Job migrate (Running)") {
		t.Errorf("mapped hook logs: exit %d\nstdout: %q\nstderr: %s", code, stdout, stderr)
	}
}

// decoyOnManagement puts, on the management cluster, a namespace of the
// destination's name with a healthy Deployment api, its ReplicaSet and a
// Pod named like the destination's: what a tree read from the wrong cluster
// would show.
func decoyOnManagement(t *testing.T, mgmt *testcluster.Cluster, ns string) {
	t.Helper()
	kc := mgmt.Kube(t)
	ctx := context.Background()
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kc.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	labels := map[string]string{"app": "api"}
	one := int32(1)
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "registry.example/api:management"}}}}
	d, err := kc.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID}}
	if _, err := kc.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "api-decoy", Labels: labels, OwnerReferences: owner},
		Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-7f9c-ready", Labels: labels}, Spec: tmpl.Spec}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
