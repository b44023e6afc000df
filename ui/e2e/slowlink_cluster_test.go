package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// linkLatency is the delay the proxy adds to every request: a screen that
// waited on the network would take at least this long to answer a key.
const linkLatency = 3 * time.Second

// A link of seconds of latency whose connections are cut under the
// workbench: every keystroke is still answered on screen at once (the
// network calls run beside the screen, never in its way), the lost
// connection is shown, and the data arrives when the link lets it (a
// change made on the cluster meanwhile reaches the screen).
func TestClusterASlowAndDroppingLinkNeverFreezesTheScreen(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	for _, name := range []string{"web", "api", "worker"} {
		create(t, dyn, argocd.Applications, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"`+name+`"},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"`+name+`"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{}}}}`)
	}
	p := c.Proxy(t)
	term := start(t, 140, 36, nil, "--read-only", "--kubeconfig", testcluster.Kubeconfig(t, p.Config(), "slow"), "-n", ns)
	term.waitUntil(startup, "the three Applications to show", func(s string) bool { return strings.Count(s, "argocd ") == 3 })

	// Whether the header ever says the connection is lost, watched beside
	// the keys.
	lost := make(chan struct{})
	go func() {
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if disconnected(term.screen()) {
				close(lost)
				return
			}
		}
	}()
	p.SetLatency(linkLatency)
	p.CutConnections()

	var worst time.Duration
	answered := func(keys, what string, cond func(string) bool) {
		t.Helper()
		t0 := time.Now()
		term.send(keys)
		term.waitUntil(promptly, what, cond)
		d := time.Since(t0)
		worst = max(worst, d)
		if d >= linkLatency {
			t.Errorf("%s took %v: the screen waited on the network", what, d)
		}
	}
	// The status line under the list names the cursor's unit in full.
	cursorOn := func(name string) func(string) bool {
		return func(s string) bool { return strings.Contains(below(s, "────"), "argocd/"+ns+"/"+name+" ") }
	}
	// Which unit the cursor is on, read off a whole frame (one screen
	// grabbed as the link is cut may be drawn half).
	first := ""
	term.waitUntil(promptly, "a unit under the cursor", func(s string) bool {
		for _, n := range []string{"api", "web", "worker"} {
			if cursorOn(n)(s) {
				first = n
			}
		}
		return first != ""
	})
	for round := range 5 {
		answered("j", "the cursor to move down", func(s string) bool {
			return !cursorOn(first)(s) && strings.Contains(below(s, "────"), "argocd/"+ns+"/")
		})
		answered("k", "the cursor to move back up", cursorOn(first))
		answered("?", "the help to open", func(s string) bool { return strings.Contains(s, "Keys") })
		answered("\x1b", "the help to close", func(s string) bool { return strings.Contains(s, "NAMESPACE/NAME") })
		// The detail opens at once and fills when the slow read returns.
		answered("\r", "the detail to open", func(s string) bool { return strings.Contains(s, "Overview") })
		answered("\x1b", "the detail to close", func(s string) bool { return strings.Contains(s, "NAMESPACE/NAME") })
		if round == 1 {
			p.CutConnections()
		}
	}
	t.Logf("with %v of latency and cut connections, the slowest of 30 keys showed on screen after %v", linkLatency, worst.Round(time.Millisecond))

	select {
	case <-lost:
	case <-time.After(promptly):
		t.Errorf("the header never said the connection was lost:\n%s", term.screen())
	}
	// Data still arrives over the slow link: a change made on the cluster
	// reaches the screen, and the header is live again.
	changed := time.Now()
	if _, err := dyn.Resource(argocd.Applications).Namespace(ns).Patch(context.Background(), "web", types.MergePatchType,
		[]byte(`{"status":{"sync":{"status":"OutOfSync"},"health":{"status":"Degraded"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	term.waitUntil(startup, "the change to reach the screen over the slow link, and the header to be live", func(s string) bool {
		return rowWith(s, "argocd ", "degraded") && strings.Contains(s, "● live") && !disconnected(s)
	})
	t.Logf("a change made on the cluster showed %v later over the slow link", time.Since(changed).Round(time.Millisecond))

	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
