package e2e

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
)

// :flux narrows the demo's list to Flux units, and a Terraform waiting for
// approval opens on its pending plan, named by its full id.
func TestDemoFluxScopeAndTerraformPlan(t *testing.T) {
	term := start(t, 120, 40, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send(":flux\r")
	term.waitUntil(promptly, "the list to show only Flux units", func(s string) bool {
		return strings.Contains(s, ":flux") && strings.Contains(s, "flux ks ") && strings.Contains(s, "flux hr ") &&
			!strings.Contains(s, "argocd ") && !strings.Contains(s, "pulumi ") && !strings.Contains(s, "tofu tf ")
	})

	term.send(":terraform\r")
	term.waitFor(promptly, ":terraform", "tofu tf flux-system/eks-cluster")
	term.send(`/eks-cluster` + "\r")
	term.waitUntil(promptly, "the filter to leave only eks-cluster", func(s string) bool {
		return strings.Contains(s, "flux-system/eks-cluster") && strings.Count(s, "tofu tf ") == 1
	})
	term.send("\r")
	s := term.waitFor(promptly, "terraform/flux-system/eks-cluster", "Terraform plan", "waits for approval")
	// The id is shown whole: the demo's plan ids are plan-main- and ten hex digits.
	id := ""
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "plan-main-") && len(f) == len("plan-main-")+10 {
			id = f
		}
	}
	if id == "" {
		t.Fatalf("no full pending plan id on the detail:\n%s", s)
	}
	if !strings.Contains(s, "pending     "+id+"  waits for approval") {
		t.Errorf("the pending plan is not shown as %s waiting for approval:\n%s", id, s)
	}
	term.send("q")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// In the demo, d on a Kustomization shows the diff of a real kustomize
// build of the git repository the demo embeds, dry-run against the demo:
// web-backend was scaled by hand, and the diff says the next reconcile
// scales it back.
func TestDemoKustomizationDiffInTheWorkbench(t *testing.T) {
	localrendertest.Use(t)
	term := start(t, 120, 40, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send("/web-backend\r")
	term.waitUntil(promptly, "the filter to leave only web-backend", func(s string) bool {
		return strings.Contains(s, "team-web/web-backend") && strings.Count(s, "flux ks ") == 1
	})
	term.send("d")
	term.waitFor(startup, "Deployment", "-  replicas: 5", "+  replicas: 2", "local build of https://github.com/acme/web.git@36308ca")
	term.send("q")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
