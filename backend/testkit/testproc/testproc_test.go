package testproc

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A process started in a directory is found under it until it ends, and
// not under a sibling directory.
func TestAProcessIsFoundUnderItsWorkingDirectory(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	cmd := exec.Command("sleep", "60")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	found := Under(dir)
	if len(found) != 1 || !strings.HasPrefix(found[0], pid+" sleep 60") {
		t.Errorf("under %s: %q, want the sleep (pid %s)", dir, found, pid)
	}
	if found := Under(other); len(found) != 0 {
		t.Errorf("under another directory: %q, want nothing", found)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if found := Under(dir); len(found) != 0 {
		t.Errorf("after it ended: %q, want nothing", found)
	}
}

// NoneLeftUnder reports a process still running after the grace period,
// and kills it.
func TestOneLeftIsReportedAndKilled(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sleep", "60")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	rec := &recorder{TB: t}
	NoneLeftUnder(rec, dir, 100*time.Millisecond)
	if !strings.Contains(rec.errors, "still running under "+dir) || !strings.Contains(rec.errors, "sleep 60") {
		t.Errorf("reported %q, want the sleep named", rec.errors)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the process left behind was not killed")
	}
}

type recorder struct {
	testing.TB
	errors string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors += strings.TrimSpace(fmt.Sprintf(format, args...))
}
