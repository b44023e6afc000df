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

// A HelmRelease's diff renders the chart its GitRepository holds now with
// its values, against the release it last made: exactly what the new chart
// version changes, nothing of what stayed; a HelmRelease whose repository
// the demo holds no copy of says so.
func TestDemoDiffOfAHelmReleaseRendersItsChartAgainstItsRelease(t *testing.T) {
	isolate(t)
	localrendertest.Use(t)
	code, out, stderr := run(t, "--demo", "diff", "helmrelease/team-web/web-cache")
	for _, want := range []string{
		"local render of chart web-cache 0.5.0 (./web-cache) from https://github.com/acme/charts.git@808a21fd1471",
		"against Helm release web-cache v3 (chart web-cache 0.4.0)", "# 3 modified, 0 added, 0 removed (deleted by the upgrade), 0 unchanged",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var changed []string
	for _, l := range strings.Split(out, "\n") {
		if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
			changed = append(changed, l[:1]+strings.TrimSpace(l[1:]))
		}
	}
	want := []string{"+maxmemory 256mb", "+maxmemory-policy allkeys-lru", "-helm.sh/chart: web-cache-0.4.0", "+helm.sh/chart: web-cache-0.5.0",
		"-helm.sh/chart: web-cache-0.4.0", "+helm.sh/chart: web-cache-0.5.0", "-image: redis:7.2.5", "+image: redis:7.4.1",
		"-helm.sh/chart: web-cache-0.4.0", "+helm.sh/chart: web-cache-0.5.0"}
	if code != exitFailed || strings.Join(changed, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d, changed lines:\n%s\nwant:\n%s", code, strings.Join(changed, "\n"), strings.Join(want, "\n"))
	}

	code, _, stderr = run(t, "--demo", "diff", "helmrelease/monitoring/loki")
	if code != 7 || !strings.Contains(stderr, "never reaches the network") || strings.Contains(stderr, "preview") {
		t.Errorf("a chart the demo does not hold: exit %d, want 7 saying the demo stays off the network\n%s", code, stderr)
	}
}
