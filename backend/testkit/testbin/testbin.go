// Package testbin builds driftdeck and its helper executables for tests.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
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
// its path. A test binary built with -race builds it with -race too, which
// reuses the packages its own build compiled.
//
// Every test process of a checkout shares one copy of each command, in the
// system's temporary directory under a name of the checkout and the flags:
// go build relinks an existing copy only when its build ID says its sources
// changed, so a test run links each command once, not once per package (a
// race-enabled link is seconds of CPU), and leaves one copy behind, not one
// per process (100-150 MB each).
func Build(t testing.TB, importPath string) string {
	t.Helper()
	bin, out, err := Command(importPath)
	if err != nil {
		t.Fatalf("building %s: %v\n%s", importPath, err, out)
	}
	return bin
}

// Command is Build for a TestMain: the command's path, or why it could not
// be built (with go build's output).
func Command(importPath string) (bin string, out []byte, err error) {
	v, _ := builds.LoadOrStore(importPath, &build{})
	b := v.(*build)
	b.once.Do(func() {
		var dir string
		if dir, b.err = sharedDir(); b.err != nil {
			return
		}
		b.path = filepath.Join(dir, path.Base(importPath))
		b.out, b.err = buildLocked(b.path, importPath)
	})
	return b.path, b.out, b.err
}

// sharedDir is the directory of this checkout's commands built with this
// process's flags.
func sharedDir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	name := "driftdeck-testbin-" + hex.EncodeToString(sum[:6])
	if raceEnabled {
		name += "-race"
	}
	dir := filepath.Join(os.TempDir(), name)
	return dir, os.MkdirAll(dir, 0o755)
}

// moduleRoot is the directory of the go.mod above the working directory
// (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// buildLocked runs go build into bin while holding bin's lock file: test
// processes of several packages ask for the same command at once, and one
// build at a time lets the others find it up to date.
func buildLocked(bin, importPath string) ([]byte, error) {
	lock, err := os.OpenFile(bin+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("locking %s: %w", lock.Name(), err)
	}
	// Without DWARF and the symbol table, as make test links: less link
	// time, and panics and race reports still name file and line.
	args := []string{"build", "-ldflags=-s -w", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append(args, importPath)...)
	cmd.Env = buildEnv
	return cmd.CombinedOutput()
}
