package e2e

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testhostile"
)

// filterTo leaves the list's one unit whose name holds name, under the
// cursor; the list must have no filter yet.
func filterTo(t *testing.T, term *terminal, name string) {
	t.Helper()
	term.send("/" + name + "\r")
	term.waitUntil(promptly, "the filter to leave "+name+" alone", func(s string) bool {
		_, rows, _ := strings.Cut(s, "NAMESPACE/NAME")
		_, rows, _ = strings.Cut(rows, "\n")
		rows, _, _ = strings.Cut(rows, "\n\n")
		return strings.Contains(s, "/"+name+" ") && strings.HasPrefix(rows, ">") && !strings.Contains(rows, "\n")
	})
}

// Cursor moves, C1 controls and OSC 52 in a Kustomization's and a
// Terraform's condition messages and in an Application's pause
// annotations, and cursor moves and bytes that are not UTF-8 in a
// workspace pod's log line: each is shown escaped on the screen that shows
// it, and none reaches the terminal raw.
func TestClusterTUIShowsCursorMovesFromEveryEngineEscaped(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	testhostile.PlantUnits(t, dyn, ns)
	create(t, dyn, pulumiop.Stacks, ns, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},
		"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"}}`)
	kubelet := c.FakeKubelet(t)
	if _, err := c.Kube(t).CoreV1().Pods(ns).Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "net-workspace-0", Labels: map[string]string{"auto.pulumi.com/component": "workspace", "auto.pulumi.com/workspace-name": "net"}},
		Spec:       corev1.PodSpec{NodeName: kubelet.Node, Containers: []corev1.Container{{Name: "pulumi", Image: "pulumi/pulumi:3"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubelet.SetLog(ns, "net-workspace-0", "pulumi", testhostile.LogLine, nil)

	term := start(t, 200, 50, nil, "--read-only", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "e2e"), "-n", ns)
	term.waitUntil(startup, "the four units to show", func(s string) bool { return strings.Count(s, "NAMESPACE/NAME") == 1 && strings.Contains(s, "4 units") })
	for _, ref := range []string{"kustomization/" + ns + "/" + testhostile.Kustomization, "terraform/" + ns + "/" + testhostile.Terraform, "argocd/" + ns + "/" + testhostile.Application} {
		filterTo(t, term, ref[strings.LastIndex(ref, "/")+1:])
		term.waitUntil(promptly, ref+"'s status lines to show the text escaped", func(s string) bool {
			w := words(below(s, "────"))
			for _, e := range testhostile.Escaped {
				if !strings.Contains(w, e) {
					return false
				}
			}
			return true
		})
		term.send("\r")
		term.waitUntil(promptly, ref+"'s detail to show the text escaped", func(s string) bool {
			return strings.Contains(s, ref) && strings.Contains(words(s), testhostile.EscapedMiddle)
		})
		term.send("\x1b")
		term.waitFor(promptly, "NAMESPACE/NAME")
		term.send("\x1b") // clears the filter
		term.waitUntil(promptly, "the filter to be cleared", func(s string) bool {
			return rowWith(s, "flux ks ") && rowWith(s, "tofu tf ") && rowWith(s, "argocd ") && rowWith(s, "pulumi ")
		})
	}
	filterTo(t, term, "net")
	term.send("\r")
	term.waitFor(promptly, "Overview")
	term.send("O")
	term.waitFor(promptly, testhostile.LogLineEscaped)
	term.send("\x1b")
	term.waitFor(promptly, "Overview")
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.quitWritingNoneRaw(append([]string{"\xff\xfe", "step 3 \x1b"}, testhostile.Raw...)...)
}
