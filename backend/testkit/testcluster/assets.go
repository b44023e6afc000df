package testcluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Environment variables this package reads.
const (
	// EnvAssets names a directory holding kube-apiserver and etcd.
	EnvAssets = "KUBEBUILDER_ASSETS"
	// EnvRequire, set to 1, turns a skip for missing binaries into a failure.
	EnvRequire = "DRIFTDECK_REQUIRE_CLUSTER"
	// EnvSharedCRDs overrides where the upstream CRD sets are (../shared/crds
	// from the repository root by default).
	EnvSharedCRDs = "DRIFTDECK_SHARED_CRDS"
)

const modulePath = "github.com/driftdeck/driftdeck"

// errNotBuilt means the control plane binaries have not been built yet: the
// tests skip (unless required), pointing at the command that builds them.
var errNotBuilt = errors.New("the test control plane (kube-apiserver and etcd) is not built yet: " +
	"run `make test` (builds it once into the user cache, 10-25 min cold, then runs every test), " +
	"or set " + EnvAssets + " to a directory holding kube-apiserver and etcd")

// binaries are what envtest starts.
var binaries = []string{"kube-apiserver", "etcd"}

// findAssets returns the directory of the control plane binaries: the one
// KUBEBUILDER_ASSETS names (which must hold them: a wrong explicit setting is
// an error, not a skip), else the project's tool cache, asked without building.
func findAssets() (string, error) {
	if dir := os.Getenv(EnvAssets); dir != "" {
		if err := checkAssets(dir); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvAssets, dir, err)
		}
		return dir, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "testdata", "tools", "build.sh")
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script, "--cached", "controlplane")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 3:
		return "", errNotBuilt
	case err != nil:
		return "", fmt.Errorf("%s --cached controlplane: %w: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if dir, ok := strings.CutPrefix(sc.Text(), EnvAssets+"="); ok {
			return dir, checkAssets(dir)
		}
	}
	return "", fmt.Errorf("%s --cached controlplane printed no %s line", script, EnvAssets)
}

func checkAssets(dir string) error {
	var missing []string
	for _, b := range binaries {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no executable %s there (make test builds them)", strings.Join(missing, " or "))
	}
	return nil
}

var repoRoot = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isProjectModule(mod) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
})

func isProjectModule(gomod []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return f[1] == modulePath
		}
	}
	return false
}

// RepoRoot is the repository's top directory, found from the working
// directory (go test runs in the package's directory).
func RepoRoot() (string, error) { return repoRoot() }

func required() bool { return os.Getenv(EnvRequire) == "1" }

// Tool is the path of a real tool the tests run, named by env (make test
// sets it from testdata/tools/build.sh): a test without it is skipped, or
// fails when real-cluster tests are required. what is the build.sh target.
func Tool(t testing.TB, env, what string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		msg := env + " is not set: build it with `testdata/tools/build.sh " + what + "` and export what it prints"
		if required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}
