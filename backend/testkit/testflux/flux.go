package testflux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/internal/procgroup"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Namespace is the controllers' runtime namespace.
const Namespace = "flux-system"

// Flux is a running source-controller and kustomize-controller.
type Flux struct {
	procs *procgroup.Group
}

// Start installs the controllers' CRDs on c (replacing definitions of the
// same names: on a shared control plane, for every test of the package) and
// runs both controllers until Stop. It returns errNotBuilt (wrapped) when
// they are missing: see Skip.
func Start(t testing.TB, c *testcluster.Cluster) (*Flux, error) {
	t.Helper()
	dir, err := findDir()
	if err != nil {
		return nil, err
	}
	c.InstallCRDs(t, testcluster.CRDSet{Name: filepath.Base(dir), Dir: filepath.Join(dir, "crds")})
	procs, err := procgroup.New("driftdeck-flux-")
	if err != nil {
		return nil, err
	}
	f := &Flux{procs: procs}
	if err := f.start(c, dir); err != nil {
		return nil, errors.Join(err, f.Stop())
	}
	return f, nil
}

// Skip skips (or, when real-cluster tests are required, fails) a test whose
// Start failed because the controllers are not built; other errors fail it.
func Skip(t testing.TB, err error) {
	t.Helper()
	testcluster.SkipUnlessBuilt(t, err, errNotBuilt)
}

func (f *Flux) start(c *testcluster.Cluster, bin string) error {
	cfg := c.Config()
	kubeconfig := filepath.Join(f.procs.Dir, "kubeconfig")
	if err := testcluster.WriteKubeconfig(cfg, "test", kubeconfig); err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	ports, err := procgroup.FreePorts(5)
	if err != nil {
		return err
	}
	storage := filepath.Join(f.procs.Dir, "storage")
	if err := os.Mkdir(storage, 0o700); err != nil {
		return err
	}
	// Neither controller takes --kubeconfig.
	env := []string{"KUBECONFIG=" + kubeconfig, "RUNTIME_NAMESPACE=" + Namespace, "HOME=" + f.procs.Dir,
		"TMPDIR=" + f.procs.Dir}
	artifacts := "127.0.0.1:" + ports[0]
	if err := f.procs.Run("source-controller", filepath.Join(bin, "source-controller"), env,
		"--storage-path", storage, "--storage-addr", artifacts, "--storage-adv-addr", artifacts,
		"--metrics-addr", "127.0.0.1:"+ports[1], "--health-addr", "127.0.0.1:"+ports[2],
		"--enable-leader-election=false", "--watch-all-namespaces=true"); err != nil {
		return err
	}
	// kustomize-controller downloads artifacts from the advertised address.
	if err := procgroup.WaitListening(artifacts, 60*time.Second); err != nil {
		return f.procs.Failed("source-controller", err)
	}
	// Its health endpoint answers before the workers start: callers wait
	// on the objects' conditions. A port taken between FreePorts and its
	// bind (another test's process) ends it at once: then again on others.
	for attempt := 1; ; attempt++ {
		if err := f.procs.Run("kustomize-controller", filepath.Join(bin, "kustomize-controller"), env,
			"--metrics-addr", "127.0.0.1:"+ports[3], "--health-addr", "127.0.0.1:"+ports[4],
			"--enable-leader-election=false", "--watch-all-namespaces=true"); err != nil {
			return err
		}
		err := procgroup.WaitListening("127.0.0.1:"+ports[4], 60*time.Second)
		if err == nil && f.procs.Running("kustomize-controller", time.Second) {
			return nil
		}
		if attempt == 3 {
			return f.procs.Failed("kustomize-controller", errors.Join(err, errors.New("it exited")))
		}
		f.procs.Forget("kustomize-controller")
		if ports, err = procgroup.FreePorts(5); err != nil {
			return err
		}
	}
}

// Log is the tail of a controller's output ("source-controller",
// "kustomize-controller"), for a failing test's message.
func (f *Flux) Log(name string) string { return f.procs.Log(name) }

// Output is all a controller has logged so far.
func (f *Flux) Output(name string) (string, error) { return f.procs.Output(name) }

// Logs is the tail of both controllers' output.
func (f *Flux) Logs() string {
	return fmt.Sprintf("source-controller:\n%s\nkustomize-controller:\n%s", f.Log("source-controller"), f.Log("kustomize-controller"))
}

// Stop ends both controllers and removes their files.
func (f *Flux) Stop() error { return f.procs.Stop() }
