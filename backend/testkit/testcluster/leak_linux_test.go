package testcluster

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A test process killed outright (a timeout panic, ^C, SIGKILL) runs no
// cleanup; its etcd and kube-apiserver must still go, with their files.
func TestClusterKilledTestProcessLeavesNoControlPlane(t *testing.T) {
	RequireBinaries(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), leakHelperEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // already dead in the normal course

	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the helper's report: %v", err)
	}
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "ready" {
		t.Fatalf("helper said %q", line)
	}
	dir := fields[1]
	var pids []int
	for _, f := range fields[2:] {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("helper said %q", line)
		}
		pids = append(pids, pid)
	}
	if len(pids) != 2 {
		t.Fatalf("helper runs %d control plane processes (%v), want etcd and kube-apiserver", len(pids), pids)
	}
	for _, pid := range pids {
		if !running(pid) {
			t.Fatalf("process %d is not running before the kill", pid)
		}
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	deadline := time.Now().Add(20 * time.Second)
	for {
		var alive []int
		for _, pid := range pids {
			if running(pid) {
				alive = append(alive, pid)
			}
		}
		_, statErr := os.Stat(dir)
		if len(alive) == 0 && os.IsNotExist(statErr) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s after the kill: still running %v; directory %s: %v", alive, dir, statErr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// running reports whether a process exists and is not a zombie.
func running(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, _, state, _, ok := parseStat(string(raw))
	return ok && state != "Z"
}

func TestParseStat(t *testing.T) {
	pid, comm, state, ppid, ok := parseStat("4242 (kube (api) server) S 17 4242 4242 0 -1")
	if !ok || pid != 4242 || comm != "kube (api) server" || state != "S" || ppid != 17 {
		t.Fatalf("parseStat = %d %q %q %d %v", pid, comm, state, ppid, ok)
	}
	if _, _, _, _, ok := parseStat("garbage"); ok {
		t.Fatal("parseStat accepted garbage")
	}
}
