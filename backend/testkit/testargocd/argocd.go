package testargocd

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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/internal/procgroup"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Namespace is where the controller runs and watches Applications.
const Namespace = "argocd"

// ArgoCD is a running application controller, repo-server and redis.
type ArgoCD struct {
	procs *procgroup.Group
	// What the API server shares with the controller (StartServer).
	bins                            binaries
	cfg                             *rest.Config
	kubeconfig, redisAddr, repoAddr string
	server                          serverOnce
	appSets                         appSetOnce
}

// Start runs the three components against c until Stop. It returns
// errNotBuilt (wrapped) when the binaries are missing: callers skip or fail
// with testcluster's rules (Skip).
func Start(c *testcluster.Cluster) (*ArgoCD, error) {
	bins, err := findBinaries()
	if err != nil {
		return nil, err
	}
	procs, err := procgroup.New("driftdeck-argocd-")
	if err != nil {
		return nil, err
	}
	a := &ArgoCD{procs: procs, bins: bins, cfg: c.Config()}
	if err := a.start(c, bins); err != nil {
		return nil, errors.Join(err, a.Stop())
	}
	return a, nil
}

// Skip skips (or, when real-cluster tests are required, fails) a test whose
// Start failed because the binaries are not built; other errors fail it.
func Skip(t testing.TB, err error) {
	t.Helper()
	testcluster.SkipUnlessBuilt(t, err, errNotBuilt)
}

func (a *ArgoCD) start(c *testcluster.Cluster, bins binaries) error {
	cfg := c.Config()
	dir := a.procs.Dir
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := testcluster.WriteKubeconfig(cfg, "test", kubeconfig); err != nil {
		return err
	}
	if err := seed(cfg); err != nil {
		return fmt.Errorf("creating what the controller needs in %s: %w", Namespace, err)
	}
	ports, err := procgroup.FreePorts(4)
	if err != nil {
		return err
	}
	redisAddr := "127.0.0.1:" + ports[0]
	repoAddr := "127.0.0.1:" + ports[1]
	a.kubeconfig, a.redisAddr, a.repoAddr = kubeconfig, redisAddr, repoAddr
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	if err := a.procs.Run("redis", bins.redis, nil, "--port", ports[0], "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"); err != nil {
		return err
	}
	if err := procgroup.WaitListening(redisAddr, 30*time.Second); err != nil {
		return a.procs.Failed("redis", err)
	}
	// The repo-server shares a socket and GnuPG home by default: keep both
	// in this run's directory.
	repoEnv := []string{"ARGOCD_BINARY_NAME=argocd-repo-server", "ARGOCD_GPG_ENABLED=false",
		"ARGOCD_ASK_PASS_SOCK=" + filepath.Join(dir, "askpass.sock"), "TMPDIR=" + tmp, "HOME=" + dir}
	if bins.helm != "" {
		// It runs `helm template` for Helm sources, found on its PATH.
		repoEnv = append(repoEnv, "PATH="+filepath.Dir(bins.helm)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if err := a.procs.Run("repo-server", bins.argocd, repoEnv, "--address", "127.0.0.1", "--port", ports[1],
		"--metrics-port", ports[2], "--disable-tls", "--redis", redisAddr, "--loglevel", "info"); err != nil {
		return err
	}
	if err := procgroup.WaitListening(repoAddr, 60*time.Second); err != nil {
		return a.procs.Failed("repo-server", err)
	}
	// The fake in-cluster flag maps https://kubernetes.default.svc to the
	// kubeconfig's server.
	ctrlEnv := []string{"ARGOCD_BINARY_NAME=argocd-application-controller", "ARGOCD_FAKE_IN_CLUSTER=true",
		"KUBECONFIG=" + kubeconfig, "TMPDIR=" + tmp, "HOME=" + dir}
	if err := a.procs.Run("application-controller", bins.argocd, ctrlEnv, "--kubeconfig", kubeconfig,
		"--namespace", Namespace, "--redis", redisAddr, "--repo-server", repoAddr, "--repo-server-plaintext",
		"--metrics-port", ports[3], "--loglevel", "info"); err != nil {
		return err
	}
	if err := procgroup.WaitListening("127.0.0.1:"+ports[3], 60*time.Second); err != nil {
		return a.procs.Failed("application-controller", err)
	}
	return nil
}

// Log is the tail of a component's output ("application-controller",
// "repo-server", "redis"), for a failing test's message.
func (a *ArgoCD) Log(name string) string { return a.procs.Log(name) }

// Stop ends every component and removes their files.
func (a *ArgoCD) Stop() error { return a.procs.Stop() }

// seed creates the namespace, the ConfigMaps and Secret the controller reads,
// and the default AppProject (argocd-server would create it; nothing syncs
// without it).
func seed(cfg *rest.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	part := map[string]string{"app.kubernetes.io/part-of": "argocd"}
	objs := []func() error{
		func() error {
			_, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{})
			return err
		},
	}
	for _, name := range []string{"argocd-cm", "argocd-rbac-cm", "argocd-cmd-params-cm"} {
		objs = append(objs, func() error {
			_, err := kc.CoreV1().ConfigMaps(Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: part}}, metav1.CreateOptions{})
			return err
		})
	}
	objs = append(objs, func() error {
		_, err := kc.CoreV1().Secrets(Namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd-secret", Labels: part},
			StringData: map[string]string{"server.secretkey": "test-only-secret-key"}}, metav1.CreateOptions{})
		return err
	}, func() error {
		proj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
			"metadata": map[string]any{"name": "default", "namespace": Namespace},
			"spec": map[string]any{
				"sourceRepos":              []any{"*"},
				"destinations":             []any{map[string]any{"server": "*", "namespace": "*"}},
				"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}},
			},
		}}
		_, err := dyn.Resource(argocd.AppProjects).Namespace(Namespace).Create(ctx, proj, metav1.CreateOptions{})
		return err
	})
	for _, create := range objs {
		if err := create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// FreezeController holds the application controller still (SIGSTOP) until
// thaw: argocd-server keeps serving what it last wrote, and nothing
// reconciles meanwhile.
func (a *ArgoCD) FreezeController() (thaw func(), err error) {
	return a.procs.Freeze("application-controller")
}
