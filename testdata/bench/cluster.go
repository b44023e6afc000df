package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
)

// controlPlane is a real kube-apiserver and etcd with the GitOps CRDs.
type controlPlane struct {
	env   *envtest.Environment
	cfg   *rest.Config
	dir   string
	guard io.WriteCloser
	// Kubeconfig is a kubeconfig file for the administrator.
	Kubeconfig string
	// CRDs names the CRD set installed.
	CRDs string
	// APIServerPID is kube-apiserver's process id ("" when not found), to
	// read what serving costs it.
	APIServerPID string
}

// assetsDir asks the project's tool script where the cached control plane
// binaries are (it never builds: a cold build takes 10-25 minutes and belongs
// to make tools).
func assetsDir(root string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	var stderr bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "testdata", "tools", "build.sh"), "--cached", "controlplane")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("the control plane binaries are not built (run make tools): %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if dir, ok := strings.CutPrefix(sc.Text(), "KUBEBUILDER_ASSETS="); ok {
			return dir, nil
		}
	}
	return "", errors.New("build.sh --cached controlplane printed no KUBEBUILDER_ASSETS line")
}

// crdDirs picks the upstream Argo CD 3.5.1 and Pulumi operator 2.9.0 CRDs
// when ../shared/crds has them (the exact schemas users run), else the
// project's own testdata/crds.
func crdDirs(root, which string) (dirs []string, name string, err error) {
	shared := filepath.Join(filepath.Dir(root), "shared", "crds")
	if d := os.Getenv("DRIFTDECK_SHARED_CRDS"); d != "" {
		shared = d
	}
	upstream := []string{filepath.Join(shared, "argocd-v3.5.1"), filepath.Join(shared, "pulumi-operator-v2.9.0")}
	haveUpstream := true
	for _, d := range upstream {
		if _, err := os.Stat(d); err != nil {
			haveUpstream = false
		}
	}
	switch {
	case which == "upstream" && !haveUpstream:
		return nil, "", fmt.Errorf("-crds upstream: %s lacks argocd-v3.5.1 or pulumi-operator-v2.9.0", shared)
	case which == "upstream" || (which == "auto" && haveUpstream):
		return upstream, "upstream Argo CD v3.5.1 + Pulumi operator v2.9.0", nil
	case which == "own" || which == "auto":
		return []string{filepath.Join(root, "testdata", "crds")}, "driftdeck testdata/crds", nil
	}
	return nil, "", fmt.Errorf("-crds %q: want auto, upstream or own", which)
}

func startControlPlane(root, crds string) (*controlPlane, error) {
	crlog.SetLogger(logr.Discard())
	assets, err := assetsDir(root)
	if err != nil {
		return nil, err
	}
	dirs, name, err := crdDirs(root, crds)
	if err != nil {
		return nil, err
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
	for _, sub := range []string{"etcd", "apiserver"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, errors.Join(err, os.RemoveAll(dir))
		}
	}
	env := &envtest.Environment{
		ControlPlane: envtest.ControlPlane{
			Etcd:      &envtest.Etcd{Path: filepath.Join(assets, "etcd"), DataDir: filepath.Join(dir, "etcd")},
			APIServer: &envtest.APIServer{Path: filepath.Join(assets, "kube-apiserver"), CertDir: filepath.Join(dir, "apiserver")},
		},
		CRDDirectoryPaths:        dirs,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 120 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	cp := &controlPlane{env: env, dir: dir, CRDs: name}
	cfg, err := env.Start()
	cp.guard = startGuard(dir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("kube-apiserver and etcd from %s: %w", assets, err), cp.Stop())
	}
	cp.cfg = cfg
	cp.APIServerPID = apiServerPID()
	cp.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(cfg, cp.Kubeconfig); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return cp, nil
}

// Config is a fresh copy of the administrator's connection.
func (cp *controlPlane) Config() *rest.Config { return rest.CopyConfig(cp.cfg) }

// Stop stops the control plane and removes its files.
func (cp *controlPlane) Stop() error {
	err := cp.env.Stop()
	if rmErr := os.RemoveAll(cp.dir); err == nil {
		err = rmErr
	}
	if cp.guard != nil {
		_, _ = io.WriteString(cp.guard, "done\n")
		_ = cp.guard.Close()
	}
	return err
}

func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["bench"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["bench"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["bench"] = &clientcmdapi.Context{Cluster: "bench", AuthInfo: "bench"}
	kc.CurrentContext = "bench"
	return clientcmd.WriteToFile(*kc, path)
}

// guardScript kills the control plane and removes its files when this
// process dies without stopping it (envtest starts etcd and kube-apiserver in
// process groups of their own, so neither ^C nor our death reaches them).
const guardScript = `trap '' INT TERM HUP
read -r what
[ "$what" = done ] && exit 0
kill -KILL $PIDS 2>/dev/null
sleep 1
rm -rf -- "$DIR"
`

func startGuard(dir string) io.WriteCloser {
	cmd := exec.Command("sh", "-c", guardScript)
	cmd.Env = append(os.Environ(), "PIDS="+strings.Join(controlPlanePIDs(), " "), "DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return nil // best effort: the normal stop path still works
	}
	go cmd.Wait() //nolint:errcheck // only reaps it
	return in
}

func apiServerPID() string {
	for _, p := range controlPlaneProcesses() {
		if p.comm == "kube-apiserver" {
			return p.pid
		}
	}
	return ""
}

// controlPlanePIDs lists this process's etcd and kube-apiserver children.
func controlPlanePIDs() []string {
	var out []string
	for _, p := range controlPlaneProcesses() {
		out = append(out, p.pid)
	}
	return out
}

type process struct{ pid, comm string }

func controlPlaneProcesses() []process {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	self := os.Getpid()
	var out []process
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(raw)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open {
			continue
		}
		comm, rest := s[open+1:closing], strings.Fields(s[closing+1:])
		if len(rest) < 2 || (comm != "etcd" && comm != "kube-apiserver") {
			continue
		}
		if ppid, err := strconv.Atoi(rest[1]); err == nil && ppid == self {
			out = append(out, process{pid: strings.TrimSpace(s[:open]), comm: comm})
		}
	}
	return out
}
