// Package objstoretest builds the driftdeck-state helper for tests.
package objstoretest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once  sync.Once
	built string
	err   error
	out   []byte
)

// Helper builds cmd/driftdeck-state once per test process and returns its
// path; the binary lives until the process ends (the system's temp dir
// keeps it).
func Helper(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		var dir string
		if dir, err = os.MkdirTemp("", "driftdeck-state-"); err != nil {
			return
		}
		built = filepath.Join(dir, "driftdeck-state")
		out, err = exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", built,
			"github.com/driftdeck/driftdeck/cmd/driftdeck-state").CombinedOutput()
	})
	if err != nil {
		t.Fatalf("building driftdeck-state: %v\n%s", err, out)
	}
	return built
}
