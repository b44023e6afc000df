package testcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Options configure a control plane.
type Options struct {
	// CRDSets are installed at start. Empty means the project's own set
	// (testdata/crds), unless NoCRDs is set.
	CRDSets []CRDSet
	// NoCRDs starts without any CRD.
	NoCRDs bool
	// DataDir is where the cluster's files (etcd's data, certificates) go;
	// "" is the system's temporary directory.
	DataDir string
}

// Cluster is a running kube-apiserver and etcd.
type Cluster struct {
	env *envtest.Environment
	cfg *rest.Config
	dir string // holds etcd's data and the apiserver's certificates

	mu         sync.Mutex // serialises CRD changes and guards beforeStop
	beforeStop []func() error

	// StartTime is how long the control plane took to answer; CRDTime how
	// long installing the initial CRDs took, until all were Established.
	StartTime, CRDTime time.Duration
}

// Start runs a control plane for one test, stopped when the test ends. It
// skips the test when the binaries are not built (fails if
// DRIFTDECK_REQUIRE_CLUSTER=1).
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	checkName(t)
	c, err := Launch(opts)
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	t.Logf("control plane up in %v, CRDs installed in %v", c.StartTime.Round(time.Millisecond), c.CRDTime.Round(time.Millisecond))
	return c
}

// RequireBinaries skips the test, as Start would, when the control plane
// binaries are not built (fails if DRIFTDECK_REQUIRE_CLUSTER=1): for tests
// that start clusters in parallel subtests, to skip once and early.
func RequireBinaries(t testing.TB) {
	t.Helper()
	checkName(t)
	if _, err := findAssets(); err != nil {
		skipOrFail(t, err)
	}
}

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, errNotBuilt) && !required() {
		t.Skip("skipped: " + err.Error())
	}
	if errors.Is(err, errNotBuilt) {
		t.Fatalf("%s=1 but %v", EnvRequire, err)
	}
	t.Fatalf("starting the test control plane: %v", err)
}

// checkName enforces the naming convention CI relies on.
func checkName(t testing.TB) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	if strings.HasPrefix(top, "Test") && !strings.HasPrefix(top, "TestCluster") {
		t.Fatalf("%s uses a real cluster: name it TestCluster... (CI counts those tests to prove they ran)", top)
	}
}

var quietLogs sync.Once

// Launch starts a control plane outside a test (the benchmark's); Stop ends
// it. Start is the tests' way.
func Launch(opts Options) (*Cluster, error) {
	// envtest logs through controller-runtime, which otherwise complains
	// (with a stack trace) that no logger was set.
	quietLogs.Do(func() { logf.SetLogger(logr.Discard()) })

	sets := opts.CRDSets
	if len(sets) == 0 && !opts.NoCRDs {
		own, err := OwnCRDs()
		if err != nil {
			return nil, err
		}
		sets = []CRDSet{own}
	}
	assets, err := findAssets()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(opts.DataDir, "driftdeck-testcluster-")
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
		// A busy 2-core machine can take much longer than envtest's 20 s.
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	c := &Cluster{env: env, dir: dir}
	live.add(c)
	t0 := time.Now()
	cfg, err := env.Start()
	guard.update()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("kube-apiserver and etcd from %s: %w", assets, err), c.Stop())
	}
	c.cfg = cfg
	c.StartTime = time.Since(t0)

	t0 = time.Now()
	if err := c.install(sets); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	c.CRDTime = time.Since(t0)
	return c, nil
}

// BeforeStop registers f to run when Stop begins, newest first: for the
// clients of the control plane (controllers started against it), which would
// otherwise hold the apiserver's connections open while it shuts down.
func (c *Cluster) BeforeStop(f func() error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.beforeStop = append(c.beforeStop, f)
}

// Stop stops what registered with BeforeStop, then the control plane, and
// removes its files.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	hooks := c.beforeStop
	c.beforeStop = nil
	c.mu.Unlock()
	var errs []error
	for i := len(hooks) - 1; i >= 0; i-- {
		errs = append(errs, hooks[i]())
	}
	err := errors.Join(append(errs, c.env.Stop())...)
	if rmErr := os.RemoveAll(c.dir); err == nil {
		err = rmErr
	}
	live.remove(c)
	guard.update()
	return err
}

// APIServerPID is the process id of this cluster's kube-apiserver (0 when
// not found): the one whose certificates are in the cluster's directory.
func (c *Cluster) APIServerPID() int {
	certDir := filepath.Join(c.dir, "apiserver")
	for _, pid := range controlPlaneProcesses() {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err == nil && strings.Contains(string(cmdline), certDir) {
			return pid
		}
	}
	return 0
}

// EtcdURL is etcd's client address: a bench writes a large fleet there in
// bulk, below the API server, as a restore would.
func (c *Cluster) EtcdURL() string { return c.env.ControlPlane.Etcd.URL.String() }

// Config is the administrator's (system:masters) connection to the cluster.
func (c *Cluster) Config() *rest.Config { return rest.CopyConfig(c.cfg) }

// Kube is a typed client with the administrator's rights.
func (c *Cluster) Kube(t testing.TB) kubernetes.Interface {
	t.Helper()
	kc, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return kc
}

var invalidNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// Namespace creates a fresh namespace for one test, named after it. (There
// is no namespace controller: it is left in place when the test ends.)
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	base := invalidNameChars.ReplaceAllString(strings.ToLower(t.Name()), "-")
	base = strings.Trim(base, "-")
	if len(base) > 50 {
		base = strings.TrimRight(base[:50], "-")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns, err := c.Kube(t).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: base + "-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a namespace: %v", err)
	}
	return ns.Name
}

// live is the set of running clusters of this process, whose directories the
// process guard removes if the process dies without stopping them.
var live = &registry{clusters: map[*Cluster]bool{}}

type registry struct {
	mu       sync.Mutex
	clusters map[*Cluster]bool
}

func (r *registry) add(c *Cluster) {
	r.mu.Lock()
	r.clusters[c] = true
	r.mu.Unlock()
}

func (r *registry) remove(c *Cluster) {
	r.mu.Lock()
	delete(r.clusters, c)
	r.mu.Unlock()
}

func (r *registry) dirs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for c := range r.clusters {
		out = append(out, c.dir)
	}
	return out
}

// SkipUnlessBuilt is how a test treats err from starting a tool next to the
// control plane (a real controller): skipped when err is notBuilt, a failure
// when real-cluster tests are required (DRIFTDECK_REQUIRE_CLUSTER=1) or err
// is any other error.
func SkipUnlessBuilt(t testing.TB, err, notBuilt error) {
	t.Helper()
	if errors.Is(err, notBuilt) && !required() {
		t.Skip(err)
	}
	t.Fatal(err)
}
