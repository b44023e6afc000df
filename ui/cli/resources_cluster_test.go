package cli

import (
	"encoding/json"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/restree/restreetest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func TestClusterResourcesCommandPrintsTheLiveTreeAndSaysWhatItCouldNotRead(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	appNS, ns := c.Namespace(t), c.Namespace(t)
	restreetest.LiveWorkload(t, kubernetes.NewForConfigOrDie(c.Config()), ns, "")
	restreetest.CreateApplication(t, dynamic.NewForConfigOrDie(c.Config()), appNS, ns)
	admin := testcluster.Kubeconfig(t, c.Config(), "test")
	unit := "argocd/" + appNS + "/shop"

	code, stdout, stderr := run(t, "resources", unit, "--kubeconfig", admin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Each line's columns, single-spaced: what the table says whatever its widths.
	var lines []string
	for _, l := range strings.Split(stdout, "\n") {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		lines = append(lines, strings.Repeat(".", indent)+strings.Join(strings.Fields(l), " "))
	}
	table := strings.Join(lines, "\n")
	for _, want := range []string{
		"apps/Deployment/" + ns + "/api Progressing OutOfSync Waiting for rollout to finish: 1 of 2 updated replicas are available...",
		"\n..apps/ReplicaSet/" + ns + "/api-7f9c Progressing - Waiting",
		"\n....Pod/" + ns + `/api-7f9c-crash Degraded - container "api": CrashLoopBackOff: back-off 5m0s restarting failed container=api`,
		"\nConfigMap/" + ns + "/settings Missing OutOfSync",
		"\napps/StatefulSet/" + ns + "/db Healthy Synced partitioned roll out complete: 1 new pods have been updated...\n..Pod/" + ns + "/db-0 Healthy",
		"\napps/DaemonSet/" + ns + `/log-agent Progressing Synced Waiting for daemon set "log-agent" rollout to finish: 1 of 2 updated pods are available...`,
		"\n..Pod/" + ns + `/log-agent-w4n7c Degraded - container "agent": ImagePullBackOff`,
		"\nnetworking.k8s.io/Ingress/" + ns + "/api Healthy Synced",
		"\n# hooks of the operation (Running)\nbatch/Job/" + ns + "/migrate Progressing PreSync/Running job is running\n..Pod/" + ns + "/migrate-x7k2p Progressing",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table does not show %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "2 Degraded") || !strings.Contains(stderr, "live objects from test") {
		t.Errorf("the summary line: %s", stderr)
	}

	code, stdout, stderr = run(t, "resources", unit, "-o", "json", "--kubeconfig", admin)
	var doc struct {
		LiveRead  bool         `json:"liveRead"`
		Resources []treeRecord `json:"resources"`
		Hooks     []treeRecord `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s\n%s", code, err, stdout, stderr)
	}
	if len(doc.Resources) != 6 || len(doc.Resources[2].Children) != 1 || len(doc.Resources[2].Children[0].Children) != 2 || len(doc.Hooks) != 1 {
		t.Errorf("json tree: %s", stdout)
	}

	// Someone who may read the Application and the workloads but not Pods
	// gets the tree without them, and is told so.
	limited := testcluster.Kubeconfig(t, c.UserConfig(t, "no-pods", []rbacv1.PolicyRule{
		{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"apps", "batch", "networking.k8s.io", ""}, Resources: []string{"deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "services", "ingresses"}, Verbs: []string{"get", "list"}},
	}, ""), "no-pods")
	code, stdout, stderr = run(t, "resources", unit, "--kubeconfig", limited)
	if code != 0 || !strings.Contains(stderr, "pods in "+ns+" not readable: Forbidden") || strings.Contains(stdout, "Pod/"+ns+"/") || !strings.Contains(stdout, "api-7f9c") {
		t.Errorf("without pods: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	code, _, stderr = run(t, "resources", "argocd/"+appNS+"/missing", "--kubeconfig", admin)
	if code != 5 {
		t.Errorf("a missing Application: exit %d, %s", code, stderr)
	}
}
