package e2e

import (
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// disconnectPromise is how soon the header says a lost apiserver is lost;
// disconnectMargin is what a busy 2-core machine may add on top, between
// the model and the screen (the pump's batch, the frame, the terminal).
const (
	disconnectPromise = 2 * time.Second
	disconnectMargin  = 1500 * time.Millisecond
)

// disconnected tells the header of a context that lost its apiserver.
func disconnected(s string) bool {
	return strings.Contains(s, "● DISCONNECTED") && strings.Contains(s, "data is STALE")
}

// The real apiserver killed under the running workbench: within 2 s the
// header says DISCONNECTED and the data is STALE, the last known units stay
// on screen; once the apiserver is back the header clears by itself.
func TestClusterTheHeaderSaysDisconnectedWithinTwoSecondsOfAKilledAPIServer(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	for _, name := range []string{"web", "api"} {
		create(t, dyn, argocd.Applications, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"`+name+`"},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"`+name+`"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"}}}`)
	}
	term := start(t, 160, 30, nil, "--read-only", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "killed"), "-n", ns)
	term.waitUntil(startup, "both Applications, live", func(s string) bool {
		return strings.Contains(s, "● live") && strings.Count(s, "argocd ") == 2
	})

	killed, err := c.KillAPIServer()
	if err != nil {
		t.Fatal(err)
	}
	s := term.waitUntil(promptly, "the header to say DISCONNECTED", disconnected)
	shown := time.Since(killed)
	t.Logf("the header said DISCONNECTED %v after the SIGKILL (promise %v)", shown.Round(time.Millisecond), disconnectPromise)
	if shown > disconnectPromise+disconnectMargin {
		t.Errorf("the header said DISCONNECTED %v after the apiserver was killed: over the promised %v (and %v of margin)", shown, disconnectPromise, disconnectMargin)
	}
	if strings.Count(s, "argocd ") != 2 {
		t.Errorf("the last known units must stay on screen while disconnected:\n%s", s)
	}

	if err := c.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	term.waitUntil(90*time.Second, "the header to clear once the apiserver is back", func(s string) bool {
		return strings.Contains(s, "● live") && !disconnected(s)
	})
	t.Logf("the header cleared %v after the apiserver started again", time.Since(restarted).Round(time.Millisecond))
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
