// Package e2e runs the real driftdeck binary in a pseudo-terminal and reads
// its screen through a terminal emulator.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

var (
	binary     string
	buildFlags = []string{"build"}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "driftdeck-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "driftdeck")
	build := exec.Command("go", append(buildFlags, "-o", binary, "github.com/driftdeck/driftdeck")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building driftdeck:", err)
		os.Exit(1)
	}
	// The TestCluster... tests share one real control plane, stopped here.
	code := testcluster.RunShared(m, testcluster.Options{})
	os.RemoveAll(dir)
	os.Exit(code)
}
