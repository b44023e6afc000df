package rootmod

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The commands in a cancelled run's group are interrupted, tofu at its
// head is not: it goes on to its own end (here, echoing once its child
// is gone) rather than exit at once on a second interrupt.
func TestInterruptFollowersSparesTheLeader(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 600; echo leader carried on")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		interruptFollowers(cmd.Process.Pid)
		select {
		case err := <-done:
			if err != nil || out.String() != "leader carried on\n" {
				t.Fatalf("the leader ended with %v, printing %q; want it to carry on", err, out.String())
			}
			return
		default:
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatal("the follower's sleep still runs 30 s later")
		}
	}
}
