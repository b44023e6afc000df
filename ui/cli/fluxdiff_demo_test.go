package cli

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
)

// The demo's Kustomizations are built from the git repository it embeds,
// with the real kustomize build, and dry-run against the demo: what a diff
// says is what the commits hold, and the demo never reaches the network.
func TestDemoKustomizationDiffsBuildEmbeddedSourcesOffline(t *testing.T) {
	isolate(t)
	localrendertest.Use(t)

	// Scaled by hand to 5; the commit it was last built from says 2.
	code, out, stderr := run(t, "--demo", "diff", "kustomization/team-web/web-backend")
	if code != 1 {
		t.Fatalf("web-backend: exit %d, want 1 (differences)\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"local build of https://github.com/acme/web.git@36308ca", "-  replicas: 5", "+  replicas: 2"} {
		if !strings.Contains(out+stderr, want) {
			t.Errorf("web-backend's diff does not show %q:\n%s%s", want, out, stderr)
		}
	}
	if !strings.Contains(out, "Deployment/team-web/web-backend") || strings.Contains(out, "Service/team-web/web-backend") {
		t.Errorf("the diff must hold the scaled Deployment and not the Service, which the build matches:\n%s", out)
	}

	// Its last attempted commit names a directory that was never committed:
	// the diff fails as the controller's build does.
	code, out, stderr = run(t, "--demo", "diff", "kustomization/team-web/web-frontend")
	if code != 7 || !strings.Contains(stderr, "canary") || !strings.Contains(stderr, "257a6ef") {
		t.Errorf("web-frontend: exit %d, want 7 naming the missing canary directory and the commit\n%s%s", code, out, stderr)
	}

	code, out, stderr = run(t, "--demo", "diff", "kustomization/flux-system/apps")
	if code != 7 || !strings.Contains(stderr, "never reaches the network") {
		t.Errorf("a source the demo does not hold: exit %d, want 7 saying the demo stays off the network\n%s%s", code, out, stderr)
	}
}

// A HelmRelease has no diff: the refusal names what shows its release,
// not a Pulumi preview.
func TestDemoDiffOfAHelmReleaseNamesWhatToRunInstead(t *testing.T) {
	isolate(t)
	code, _, stderr := run(t, "--demo", "diff", "helmrelease/monitoring/loki")
	if code != exitUsage || !strings.Contains(stderr, "driftdeck --demo status -o wide helmrelease/monitoring/loki") || strings.Contains(stderr, "preview") {
		t.Errorf("diff of a HelmRelease: exit %d\n%s", code, stderr)
	}
}
