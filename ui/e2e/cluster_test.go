package e2e

import (
	"bytes"
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// hostileMessage would write "hi" to the user's clipboard (OSC 52) and
// retitle their terminal (OSC 0) if it reached the terminal raw.
const hostileMessage = "no commits found for ref \x1b]52;c;aGk=\x07 then \x1b]0;owned by the cluster\x07 end"

// A Stack's condition message holds escape sequences: the TUI shows them
// escaped, in the list and in the detail, and never writes them.
func TestClusterTUIShowsEscapeSequencesFromTheClusterEscaped(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	stack := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": map[string]any{"name": "net", "namespace": ns},
		"spec":     map[string]any{"stack": "org/net/prod", "projectRepo": "https://git.example.com/i.git", "branch": "main"},
	}}
	ctx := context.Background()
	created, err := dyn.Resource(pulumiop.Stacks).Namespace(ns).Create(ctx, stack, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Object["status"] = map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "False", "reason": "NotReadyStalled", "message": "", "lastTransitionTime": "2026-11-29T10:00:00Z"},
		map[string]any{"type": "Stalled", "status": "True", "reason": "SourceUnavailable", "message": hostileMessage, "lastTransitionTime": "2026-11-29T10:00:00Z"},
	}}
	if _, err := dyn.Resource(pulumiop.Stacks).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	term := start(t, 160, 40, nil, "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "e2e"), "-n", ns)
	const clip, title = `\x1b]52;c;aGk=\x07`, `\x1b]0;owned by the cluster\x07`
	// The list: the cursor row's status lines hold the reason whole.
	term.waitUntil(startup, "the list's status lines to show the message escaped", func(s string) bool {
		w := words(below(s, "────"))
		return strings.Contains(s, ">  pulumi ") && strings.Contains(w, clip) && strings.Contains(w, title)
	})
	// The detail: the condition's message.
	term.send("\r")
	term.waitUntil(promptly, "the detail's conditions to show the message escaped", func(s string) bool {
		_, conds, ok := strings.Cut(s, "Conditions")
		return ok && strings.Contains(words(conds), "no commits found for ref "+clip+" then "+title+" end")
	})
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	out := term.quitWritingNoneRaw("\x1b]52", "\x1b]0;owned")
	if !bytes.Contains(out, []byte(`\x1b]52;c;aGk=\x07`)) {
		t.Error("the TUI's output lacks the escaped form of the message")
	}
}
