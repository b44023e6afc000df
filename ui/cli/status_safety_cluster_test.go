package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testhostile"
)

// hostile writes to the clipboard (OSC 52) and retitles the terminal (OSC 0).
const hostile = "apply failed \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b]0;owned\x07 done"

func TestClusterStatusShowsEscapeSequencesFromTheClusterEscaped(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	msg, _ := json.Marshal(hostile)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{}}},
		"status":{"sync":{"status":"OutOfSync"},"health":{"status":"Degraded"},"conditions":[{"type":"SyncError","message":`+string(msg)+`}],
			"operationState":{"phase":"Failed","message":`+string(msg)+`,"startedAt":"2026-11-29T10:00:00Z","finishedAt":"2026-11-29T10:01:00Z","operation":{"sync":{}}}}}`)
	createJSON(t, dyn, ns, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},
		"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"},
		"status":{"conditions":[{"type":"Ready","status":"False","reason":"NotReadyStalled","message":"","lastTransitionTime":"2026-11-29T10:00:00Z"},
			{"type":"Stalled","status":"True","reason":"UpdateFailed","message":`+string(msg)+`,"lastTransitionTime":"2026-11-29T10:00:00Z"}]}}`)
	kc := testcluster.Kubeconfig(t, c.Config(), "test")

	for _, args := range [][]string{{"status"}, {"status", "-o", "wide"}} {
		code, out, stderr := run(t, append(args, "-n", ns, "--kubeconfig", kc)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("driftdeck %s wrote ESC or BEL from the cluster:\n%q", strings.Join(args, " "), out)
		}
		for _, unit := range []string{"argocd/" + ns + "/web", "pulumi/" + ns + "/net"} {
			if line := lineOf(out, unit); !strings.Contains(line, `\x1b]52;c;cm0gLXJmIH4=\x07`) || !strings.Contains(line, `\x1b]0;owned\x07`) {
				t.Errorf("driftdeck %s: %s does not show the sequences escaped:\n%s", strings.Join(args, " "), unit, line)
			}
		}
	}
	code, out, stderr := run(t, "status", "-o", "json", "-n", ns, "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("-o json: exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("-o json wrote raw ESC or BEL:\n%q", out)
	}
	var recs []unitRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("-o json is no longer JSON: %v\n%s", err, out)
	}
	if len(recs) != 2 {
		t.Fatalf("want 2 records, got %d", len(recs))
	}
	for _, r := range recs {
		if !strings.Contains(r.Reason, hostile) {
			t.Errorf("%s: the JSON reason %q does not hold the cluster's text as it is", r.Unit, r.Reason)
		}
	}
}

// Cursor moves, a screen clear, a C1 control and a clipboard write in a
// Kustomization's and a Terraform's condition messages and in an
// Application's pause annotations (who paused it, and why): status and
// status -o wide show each escaped, -o json holds the text as it is, in
// JSON's escapes, and none of the three writes a control character raw.
func TestClusterStatusShowsCursorMovesFromEveryEngineEscaped(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	ns := c.Namespace(t)
	testhostile.PlantUnits(t, dynamic.NewForConfigOrDie(c.Config()), ns)
	kc := testcluster.Kubeconfig(t, c.Config(), "test")
	units := []string{"kustomization/" + ns + "/" + testhostile.Kustomization, "terraform/" + ns + "/" + testhostile.Terraform, "argocd/" + ns + "/" + testhostile.Application}

	for _, args := range [][]string{{"status"}, {"status", "-o", "wide"}, {"status", "-o", "json"}} {
		code, out, stderr := run(t, append(args, "-n", ns, "--kubeconfig", kc)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		what := "driftdeck " + strings.Join(args, " ")
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Errorf("%s wrote a control character from the cluster raw:\n%q", what, out)
		}
		if args[len(args)-1] == "json" {
			var recs []unitRecord
			if err := json.Unmarshal([]byte(out), &recs); err != nil {
				t.Fatalf("-o json is no longer JSON: %v\n%s", err, out)
			}
			for _, r := range recs {
				if !strings.Contains(r.Reason, testhostile.CursorText) {
					t.Errorf("%s: the JSON reason %q does not hold the cluster's text as it is", r.Unit, r.Reason)
				}
			}
			if len(recs) != len(units) {
				t.Errorf("want %d records, got %d", len(units), len(recs))
			}
			continue
		}
		for _, unit := range units {
			line := lineOf(out, unit)
			for _, e := range testhostile.Escaped {
				if !strings.Contains(line, e) {
					t.Errorf("%s: %s does not show %s escaped:\n%s", what, unit, e, line)
				}
			}
		}
		if line := lineOf(out, units[2]); !strings.Contains(line, `paused by mallory \x1b[H`) {
			t.Errorf("%s: the pause's author is not shown escaped:\n%s", what, line)
		}
	}
}
