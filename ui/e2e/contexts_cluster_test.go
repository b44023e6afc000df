package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// A session on three contexts, two real clusters and one nothing answers:
// both clusters' rows show, each under its context, the dead one is marked
// disconnected in the header, and a pause made from the second cluster's
// row is written to that cluster alone.
func TestClusterThreeContextsOneUnreachableRowsAndActionsWork(t *testing.T) {
	east := testcluster.Shared(t)
	west := testcluster.Start(t, testcluster.Options{})
	ns := east.Namespace(t)
	if _, err := west.Kube(t).CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	clients := map[string]dynamic.Interface{}
	for name, c := range map[string]*testcluster.Cluster{"east": east, "west": west} {
		clients[name] = dynamic.NewForConfigOrDie(c.Config())
		create(t, clients[name], argocd.Applications, ns, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"checkout-%s"},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/shop.git","path":"checkout"},"destination":{"server":"https://kubernetes.default.svc","namespace":"shop"},
			"syncPolicy":{"automated":{"selfHeal":true}}}}`, name))
	}
	dead := rest.CopyConfig(east.Config())
	dead.Host = testcluster.RefusedURL(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := testcluster.WriteKubeconfigContexts(kc, "east", map[string]*rest.Config{"east": east.Config(), "west": west.Config(), "gone": dead}); err != nil {
		t.Fatal(err)
	}

	term := start(t, 200, 40, nil, "--kubeconfig", kc, "--context", "east,west,gone", "-n", ns)
	term.waitUntil(startup, "both clusters' rows, and gone marked disconnected", func(s string) bool {
		return strings.Contains(s, "gone") && strings.Contains(s, "DISCONNECTED") &&
			rowWith(s, " east ", "self-heal") && rowWith(s, " west ", "self-heal")
	})
	term.send("/checkout-west\r")
	term.waitUntil(promptly, "the filter to leave west's row alone", func(s string) bool {
		return rowWith(s, " west ", "self-heal") && !rowWith(s, " east ", "self-heal") && strings.Contains(s, "/checkout-west")
	})
	term.send("p")
	term.waitFor(promptly, "Pause auto-sync and self-heal of", "checkout-west", "Reason:")
	term.send("INC-7 west only")
	term.send("\r")
	term.send("2h\r")
	// What the dialog says it writes is what is written: the reason and the
	// expiry as typed, once they are.
	var shownUntil string
	term.waitUntil(promptly, "the plan to write the reason and the expiry typed", func(s string) bool {
		m := shownUntilRE.FindStringSubmatch(s)
		if m != nil {
			shownUntil = m[1]
		}
		return m != nil && strings.Contains(s, "paused-reason: INC-7 west only") && strings.Contains(s, " Yes ")
	})
	term.send("y")
	term.waitFor(promptly, "— done")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	for name, want := range map[string]bool{"west": true, "east": false} {
		o, err := clients[name].Resource(argocd.Applications).Namespace(ns).Get(context.Background(), "checkout-"+name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := paused(o); got != want {
			t.Errorf("%s's Application paused = %v, want %v; annotations %v", name, got, want, o.GetAnnotations())
		}
		if ann := o.GetAnnotations(); want && (ann["driftdeck.io/paused-until"] != shownUntil || ann["driftdeck.io/paused-reason"] != "INC-7 west only") {
			t.Errorf("%s's pause wrote until %q, reason %q; the dialog showed until %q, reason %q", name,
				ann["driftdeck.io/paused-until"], ann["driftdeck.io/paused-reason"], shownUntil, "INC-7 west only")
		}
	}
}

// shownUntilRE finds the expiry a pause's confirmation says it writes.
var shownUntilRE = regexp.MustCompile(`paused-until: (\S+)`)

// rowWith reports whether one line of the screen holds every text (a row:
// its context and its automation; the long test namespace cuts the name).
func rowWith(screen string, texts ...string) bool {
	for _, line := range strings.Split(screen, "\n") {
		all := true
		for _, t := range texts {
			all = all && strings.Contains(line, t)
		}
		if all {
			return true
		}
	}
	return false
}
