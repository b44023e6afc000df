// Package helperbintest builds driftdeck's helper executables for tests.
package helperbintest

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

type build struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

var builds sync.Map // import path -> *build

// buildEnv is the environment the test process started with: a test that
// points HOME at a temporary directory before the first build must not
// point the go command's build and module caches there too (it would
// rebuild everything from source, minutes per test binary).
var buildEnv = os.Environ()

// Build builds the command at importPath once per test process and returns
// its path; the binary lives until the process ends (the system's temp dir
// keeps it). A test binary built with -race builds it with -race too, which
// reuses the packages its own build compiled.
func Build(t testing.TB, importPath string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(importPath, &build{})
	b := v.(*build)
	b.once.Do(func() {
		name := path.Base(importPath)
		var dir string
		if dir, b.err = os.MkdirTemp("", name+"-"); b.err != nil {
			return
		}
		b.path = filepath.Join(dir, name)
		args := []string{"build", "-o", b.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append(args, importPath)...)
		cmd.Env = buildEnv
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("building %s: %v\n%s", importPath, b.err, b.out)
	}
	return b.path
}
