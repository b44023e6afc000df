package realcontrollers

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testflux"
)

// The harness itself: the real controllers fetch the served repository and
// apply it, and driftdeck reads the result as Ready and in sync.
func TestClusterRealFluxReconcilesAKustomizationFromTheServedRepo(t *testing.T) {
	e := realFluxEnv(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"apps/cm.yaml": testargocd.ConfigMap("flux-settings", "v1")})
	t0 := time.Now()
	e.source("apps", repo)
	e.kustomization("apps", "apps", "./apps")
	e.applied("apps", testflux.Revision("main", v1))
	t.Logf("Ready in %v after creating the source", time.Since(t0).Round(time.Millisecond))
	if got := e.configValue("flux-settings"); got != "v1" {
		t.Errorf("the applied ConfigMap holds %q, want v1", got)
	}
	u := flux.ConvertKustomization("test", e.get(flux.Kustomizations[0], "apps"))
	if u.Health != model.Healthy || u.Applied != testflux.Revision("main", v1) {
		t.Errorf("driftdeck reads the Ready Kustomization as %s, applied %q", u.Health, u.Applied)
	}
}
