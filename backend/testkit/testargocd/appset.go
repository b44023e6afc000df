package testargocd

import (
	"path/filepath"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/internal/procgroup"
)

type appSetOnce struct {
	once sync.Once
	err  error
}

// StartApplicationSetController runs the real argocd-applicationset-controller
// beside the application controller, once (later calls return the first
// call's error), watching ApplicationSets in Namespace with its default
// policy (sync, overridable per ApplicationSet). It stops with Stop.
func (a *ArgoCD) StartApplicationSetController() error {
	a.appSets.once.Do(func() { a.appSets.err = a.startApplicationSetController() })
	return a.appSets.err
}

func (a *ArgoCD) startApplicationSetController() error {
	ports, err := procgroup.FreePorts(3)
	if err != nil {
		return err
	}
	env := []string{"ARGOCD_BINARY_NAME=argocd-applicationset-controller", "ARGOCD_FAKE_IN_CLUSTER=true",
		"KUBECONFIG=" + a.kubeconfig, "TMPDIR=" + filepath.Join(a.procs.Dir, "tmp"), "HOME=" + a.procs.Dir}
	if err := a.procs.Run("applicationset-controller", a.bins.argocd, env, "--kubeconfig", a.kubeconfig, "--namespace", Namespace,
		"--metrics-addr", "127.0.0.1:"+ports[0], "--probe-addr", "127.0.0.1:"+ports[1], "--webhook-addr", "127.0.0.1:"+ports[2],
		"--argocd-repo-server", a.repoAddr, "--repo-server-plaintext", "--logformat", "text", "--loglevel", "info"); err != nil {
		return err
	}
	if err := procgroup.WaitListening("127.0.0.1:"+ports[1], 60*time.Second); err != nil {
		return a.procs.Failed("applicationset-controller", err)
	}
	return nil
}
