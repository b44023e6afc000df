package e2e

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testsecrets"
	"github.com/driftdeck/driftdeck/backend/tfplan"
)

// onUnit puts the list's cursor on the unit ref (engine/namespace/name) by
// filtering the list down to it ("/" edits the filter in force, ctrl+u
// starts it over). Moving the cursor row by row raced the live list: a
// unit whose state changed between a key and its frame made a j look
// taken when it was not, and the next key passed the unit by.
func onUnit(t *testing.T, term *terminal, ref string) {
	t.Helper()
	engine, _, _ := strings.Cut(ref, "/")
	term.send("/\x15^" + regexp.QuoteMeta(ref) + "$\r")
	term.waitUntil(promptly, "the list filtered down to "+ref+" under the cursor", func(s string) bool {
		rows := listRows(s)
		return len(rows) == 1 && strings.HasPrefix(rows[0], ">") && slices.Contains(strings.Fields(rows[0]), engine)
	})
}

// listRows are the list's rows: the lines between its header and the
// rule (or blank line) under the table.
func listRows(screen string) []string {
	_, rest, _ := strings.Cut(screen, "NAMESPACE/NAME")
	_, rest, _ = strings.Cut(rest, "\n")
	var rows []string
	for _, l := range strings.Split(rest, "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "─") {
			break
		}
		rows = append(rows, l)
	}
	return rows
}

// Every planted secret on the path of a screen: the workbench on a real
// cluster shows, in the list, the detail, the YAML tab, the diffs of an
// Application and a Terraform, a Stack's preview and its error, the
// Application's resource tree, a workspace pod's log and the error of a
// rejected token, the masked placeholder where each value would be, and
// not one byte the program wrote to the terminal holds a planted value, in
// clear or base64.
func TestClusterNoPlantedSecretReachesTheScreen(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	kc := c.Kube(t)
	ns := c.Namespace(t)
	testsecrets.PlantUnits(t, dyn, kc, ns)
	plantWorkspaceLog(t, c, ns)
	argo := testsecrets.FakeArgoCD(t)
	argoDir := filepath.Join(t.TempDir(), "argocd")
	testsecrets.WriteArgoConfig(t, argoDir, strings.TrimPrefix(argo.URL, "http://"), testsecrets.Values["Argo CD token from the argocd config"])
	env := []string{"ARGOCD_CONFIG_DIR=" + argoDir, "PULUMI_CONFIG_PASSPHRASE=" + testsecrets.Values["PULUMI_CONFIG_PASSPHRASE"]}
	app, stack := "argocd/"+ns+"/"+testsecrets.Application, "pulumi/"+ns+"/"+testsecrets.Stack

	term := start(t, 180, 60, env, "--read-only", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "e2e"), "-n", ns)
	term.waitUntil(startup, "the three units to show", func(s string) bool {
		return strings.Contains(s, "argocd ") && strings.Contains(s, "pulumi ") && strings.Contains(s, "tofu ")
	})

	// The Application: its diff (the API server sends the Secret in clear),
	// its resource tree (the live Secret is one of its resources).
	onUnit(t, term, app)
	term.send("\r")
	term.waitFor(promptly, "Overview", app)
	term.send("d")
	term.waitFor(promptly, "Secret", "password:", "++++++++")
	term.send("\x1b")
	term.waitFor(promptly, "Overview")
	term.send("w")
	term.waitFor(promptly, "Resources of "+app, "Secret/"+testsecrets.Secret)
	term.send("\x1b")
	term.waitFor(promptly, "Overview")
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")

	// The Stack: its YAML (secret config, literal passphrase, output), its
	// workspace pod's log, its preview, which cannot run.
	onUnit(t, term, stack)
	term.send("\r")
	term.waitFor(promptly, "Overview", stack)
	term.send("y")
	term.waitUntil(promptly, "the YAML tab to show the secret config, the passphrase and the output hidden", func(s string) bool {
		return strings.Count(s, "[hidden]") >= 3 && strings.Contains(s, "dbPassword") && strings.Contains(s, "PULUMI_CONFIG_PASSPHRASE")
	})
	term.send("O")
	term.waitFor(promptly, "pod/"+ns+"/"+testsecrets.Stack+"-workspace-0", "token "+logs.Masked)
	term.send("\x1b")
	term.waitFor(promptly, "Overview")
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("d")
	term.waitFor(startup, "preview of "+stack, "failed:")
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")

	// The Terraform: its stored plan, the Stack's filter cleared.
	term.send("/\x1b")
	term.waitUntil(promptly, "the filter cleared", func(s string) bool { return len(listRows(s)) == 3 })
	term.send(":terraform\r")
	term.waitUntil(promptly, "the list to hold the Terraform alone", func(s string) bool {
		return strings.Contains(s, ":terraform") && strings.Count(s, "tofu tf ") == 1 && !strings.Contains(s, "argocd ")
	})
	term.send("d")
	term.waitFor(promptly, "db.t3.large", tfplan.SensitiveChanged)
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	testsecrets.Scan(t, "the workbench's terminal", term.written())

	// A rejected bearer token: the error line names no token.
	bad := rest.CopyConfig(c.Config())
	bad.CertData, bad.KeyData, bad.BearerToken = nil, nil, testsecrets.Values["kubeconfig bearer token"]
	term = start(t, 180, 40, env, "--read-only", "--kubeconfig", testcluster.Kubeconfig(t, bad, "e2e"), "-n", ns)
	term.waitFor(startup, "Unauthorized")
	term.send("q")
	term.exit(promptly)
	testsecrets.Scan(t, "the workbench's terminal with a rejected token", term.written())
}

// plantWorkspaceLog gives the planted Stack a workspace pod whose log
// prints the value of a Secret the pod takes its environment from.
func plantWorkspaceLog(t *testing.T, c *testcluster.Cluster, ns string) {
	t.Helper()
	kubelet := c.FakeKubelet(t)
	kc := c.Kube(t)
	ctx := context.Background()
	token := testsecrets.Values["workspace pod's Secret (in its log)"]
	if _, err := kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-env"},
		StringData: map[string]string{"PULUMI_ACCESS_TOKEN": token}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := testsecrets.Stack + "-workspace-0"
	if _, err := kc.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: pod, Labels: map[string]string{"auto.pulumi.com/component": "workspace", "auto.pulumi.com/workspace-name": testsecrets.Stack}},
		Spec: corev1.PodSpec{NodeName: kubelet.Node, Containers: []corev1.Container{{Name: "pulumi", Image: "pulumi/pulumi:3",
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db-env"}}}}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubelet.SetLog(ns, pod, "pulumi", "Updating (org/db/prod)\ntoken "+token+"\n", nil)
}
