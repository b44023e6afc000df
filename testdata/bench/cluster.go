package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// controlPlane is a real kube-apiserver and etcd with the GitOps CRDs: the
// tests' control plane, started outside a test.
type controlPlane struct {
	cluster *testcluster.Cluster
	dir     string // holds the kubeconfig
	// Kubeconfig is a kubeconfig file for the administrator.
	Kubeconfig string
	// CRDs names the CRD set installed.
	CRDs string
	// APIServerPID is kube-apiserver's process id ("" when not found), to
	// read what serving costs it.
	APIServerPID string
}

// crdDirs picks the upstream Argo CD 3.5.1, Pulumi operator 2.9.0, Flux
// (kustomize-controller 1.9.4, helm-controller 1.6.3) and tofu-controller
// 0.16.5 CRDs
// when ../shared/crds has them (the exact schemas users run), else the
// project's own testdata/crds.
func crdDirs(root, which string) (dirs []string, name string, err error) {
	shared := filepath.Join(filepath.Dir(root), "shared", "crds")
	if d := os.Getenv("DRIFTDECK_SHARED_CRDS"); d != "" {
		shared = d
	}
	upstream := []string{filepath.Join(shared, "argocd-v3.5.1"), filepath.Join(shared, "pulumi-operator-v2.9.0"),
		filepath.Join(shared, "flux"), filepath.Join(shared, "tofu-controller-v0.16.5")}
	haveUpstream := true
	for _, d := range upstream {
		if _, err := os.Stat(d); err != nil {
			haveUpstream = false
		}
	}
	switch {
	case which == "upstream" && !haveUpstream:
		return nil, "", fmt.Errorf("-crds upstream: %s lacks argocd-v3.5.1, pulumi-operator-v2.9.0, flux or tofu-controller-v0.16.5", shared)
	case which == "upstream" || (which == "auto" && haveUpstream):
		return upstream, "upstream Argo CD v3.5.1 + Pulumi operator v2.9.0 + kustomize-controller v1.9.4 + helm-controller v1.6.3 + tofu-controller v0.16.5", nil
	case which == "own" || which == "auto":
		return []string{filepath.Join(root, "testdata", "crds")}, "driftdeck testdata/crds", nil
	}
	return nil, "", fmt.Errorf("-crds %q: want auto, upstream or own", which)
}

func startControlPlane(root, crds string) (*controlPlane, error) {
	dirs, name, err := crdDirs(root, crds)
	if err != nil {
		return nil, err
	}
	var sets []testcluster.CRDSet
	for _, d := range dirs {
		sets = append(sets, testcluster.CRDSet{Name: filepath.Base(d), Dir: d})
	}
	// etcd's data in memory when possible: seeding is not what is measured.
	base := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	dir, err := os.MkdirTemp(base, "driftdeck-bench-")
	if err != nil {
		return nil, err
	}
	c, err := testcluster.Launch(testcluster.Options{CRDSets: sets, DataDir: base})
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	cp := &controlPlane{cluster: c, dir: dir, CRDs: name, Kubeconfig: filepath.Join(dir, "kubeconfig")}
	if pid := c.APIServerPID(); pid != 0 {
		cp.APIServerPID = strconv.Itoa(pid)
	}
	if err := testcluster.WriteKubeconfig(c.Config(), "bench", cp.Kubeconfig); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return cp, nil
}

// Config is a fresh copy of the administrator's connection.
func (cp *controlPlane) Config() *rest.Config { return cp.cluster.Config() }

// Stop stops the control plane and removes its files.
func (cp *controlPlane) Stop() error {
	return errors.Join(cp.cluster.Stop(), os.RemoveAll(cp.dir))
}
