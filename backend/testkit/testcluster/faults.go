package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The faults below stop parts of the control plane: use them on a cluster of
// the test's own (Start), never on the package's shared one.

// KillAPIServer stops the kube-apiserver at once (SIGKILL, as a crashed or
// lost control-plane node goes: a graceful stop waits for open watches to
// end); etcd and its data stay. It returns when the signal was sent (finding
// the process can take a while on a busy machine), once the process is
// reaped. StartAPIServer starts it again.
func (c *Cluster) KillAPIServer() (time.Time, error) {
	defer guard.update()
	pid := c.APIServerPID()
	if pid == 0 {
		return time.Time{}, errors.New("no kube-apiserver running")
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		return time.Time{}, err
	}
	killed := time.Now()
	if err := proc.Kill(); err != nil {
		return time.Time{}, err
	}
	return killed, c.env.ControlPlane.APIServer.Stop() // reaps it
}

// StartAPIServer starts the kube-apiserver again on the same port, with the
// same certificates and client CA, so every client's configuration still
// holds. It returns once the apiserver answers its health check.
func (c *Cluster) StartAPIServer() error {
	defer guard.update()
	return c.env.ControlPlane.APIServer.Start()
}

// RestartEtcd stops etcd and starts it again on the same address and data,
// under a running kube-apiserver.
func (c *Cluster) RestartEtcd() error {
	defer guard.update()
	etcd := c.env.ControlPlane.Etcd
	if err := etcd.Stop(); err != nil {
		return fmt.Errorf("stopping etcd: %w", err)
	}
	if err := etcd.Start(); err != nil {
		return fmt.Errorf("starting etcd again: %w", err)
	}
	return nil
}

// PeerAPIServer starts a second kube-apiserver on the same etcd, as a highly
// available control plane runs several, and returns the administrator's
// connection to it: a test writes through it while the first one is down.
// It is stopped when the test ends.
func (c *Cluster) PeerAPIServer(t testing.TB) *rest.Config {
	t.Helper()
	main := c.env.ControlPlane.APIServer
	dir := filepath.Join(c.dir, "peer-apiserver")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	peer := &envtest.APIServer{
		Path:          main.Path,
		CertDir:       dir,
		EtcdURL:       main.EtcdURL,
		StartTimeout:  main.StartTimeout,
		StopTimeout:   main.StopTimeout,
		SecureServing: envtest.SecureServing{Authn: main.SecureServing.Authn}, // the same client CA: c's users hold
	}
	err := peer.Start()
	guard.update()
	if err != nil {
		t.Fatalf("starting a second kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := peer.Stop(); err != nil {
			t.Errorf("stopping the second kube-apiserver: %v", err)
		}
		guard.update()
	})
	cfg := rest.CopyConfig(c.cfg)
	cfg.Host = peer.SecureServing.URL("https", "/").String()
	cfg.CAData = peer.SecureServing.CA
	return cfg
}
