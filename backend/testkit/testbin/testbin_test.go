package testbin

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A command is built into the checkout's shared directory, runs, and a
// later build (another test process's) finds it up to date: it is not
// linked again, and no second copy appears.
func TestACommandIsBuiltOnceForEveryTestProcess(t *testing.T) {
	const pkg = "github.com/driftdeck/driftdeck/backend/testkit/testbin/testdata/hello"
	bin := Build(t, pkg)
	if out, err := exec.Command(bin).Output(); err != nil || strings.TrimSpace(string(out)) != "hello" {
		t.Fatalf("running %s: %q, %v", bin, out, err)
	}
	dir, err := sharedDir()
	if err != nil || !strings.HasPrefix(bin, dir+string(os.PathSeparator)) {
		t.Fatalf("built at %s, want it in the shared directory %s (%v)", bin, dir, err)
	}
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := buildLocked(bin, pkg); err != nil {
		t.Fatalf("building again: %v\n%s", err, out)
	}
	after, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	// go build writes a new link to a new file (renamed, or copied after a
	// remove); one it finds up to date keeps its file (it only touches it).
	if !os.SameFile(before, after) {
		t.Error("the second build replaced the command; want it found up to date")
	}
}
