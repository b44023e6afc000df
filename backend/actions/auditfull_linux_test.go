package actions

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/model"
)

// smallDisk is the tmpfs the audit log is put on: room for a line (the
// check wants 1 MiB free) until the test fills it.
const smallDisk = 2 << 20

// mountSmallDisk mounts a tmpfs of size bytes on a fresh directory until the
// test ends. Mounting needs root (CI runs as root); elsewhere the test is
// skipped, saying why.
func mountSmallDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a file system the test can fill is a tmpfs mount, which needs root; run as root (as CI does)")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size="+strconv.Itoa(size)+",mode=0700"); err != nil {
		t.Fatalf("mounting a %d-byte tmpfs on %s as root: %v", size, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting the tmpfs %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file on dir's file system until the file system refuses
// the next byte (ENOSPC), and returns the file.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s: %v, want no space left on device", dir, err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil || fs.Bavail != 0 {
		t.Fatalf("%s after filling: %d blocks free (%v), want 0", dir, fs.Bavail, err)
	}
	return path
}

// A write whose audit log lies on a full disk is refused before anything
// reaches the cluster, saying why, again and again; the refusals are audited
// while the log's last block holds their lines, then cut off whole; once
// there is room again the write is made and audited. The disk is a real
// tmpfs, filled until it refuses a byte.
func TestClusterAWriteIsRefusedWhileTheAuditLogsDiskIsFull(t *testing.T) {
	e := ownEnv(t)
	e.ns = e.c.Namespace(t)
	e.audit = filepath.Join(mountSmallDisk(t, smallDisk), "audit.jsonl")
	log, err := audit.Open(e.audit)
	if err != nil {
		t.Fatal(err)
	}
	e.exec.Audit = log
	k := e.key(model.EngineArgoCD, "web")
	e.app("web", `"automated":{"prune":true}`, drifted)
	e.mustRun(Request{Kind: Pause, Key: k, Reason: "INC-9"})

	filler := fill(t, filepath.Dir(e.audit))
	before := e.get(argocd.Applications, "web")
	eventsBefore := e.events("web")
	// Each refused attempt is audited while the log's last block has room
	// for its line; once it has none, the refusal's line is cut off again
	// and the log stays byte for byte as it was.
	refused := 0
	for unrecorded := false; !unrecorded; {
		logBefore, err := os.ReadFile(e.audit)
		if err != nil {
			t.Fatal(err)
		}
		if refused == 20 {
			t.Fatalf("%d refusals recorded on a full disk (log %d bytes): its last block cannot hold them all", refused, len(logBefore))
		}
		_, err = e.run(Request{Kind: Resume, Key: k, Reason: "INC-9 over"})
		var r *Refusal
		if !errors.As(err, &r) || !strings.Contains(r.Reason, "not written: the audit log cannot record it") || !strings.Contains(r.Reason, "file system is full") {
			t.Fatalf("resume with the audit log's disk full: %v, want a refusal saying the audit log's file system is full", err)
		}
		refused++
		logAfter, err := os.ReadFile(e.audit)
		if err != nil {
			t.Fatal(err)
		}
		unrecorded = bytes.Equal(logAfter, logBefore)
		if !unrecorded && !bytes.HasPrefix(logAfter, logBefore) {
			t.Fatalf("the audit log was rewritten on the full disk:\nbefore %q\nafter  %q", logBefore, logAfter)
		}
	}
	t.Logf("%d resumes refused, the last one's audit line not written: the disk had no room left for it either", refused)
	if after := e.get(argocd.Applications, "web"); after.GetResourceVersion() != before.GetResourceVersion() {
		t.Errorf("the Application was written (resourceVersion %s, was %s) although its audit line could not be", after.GetResourceVersion(), before.GetResourceVersion())
	}
	if got := e.events("web"); len(got) != len(eventsBefore) {
		t.Errorf("Events on the Application: %q, was %q", got, eventsBefore)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.mustRun(Request{Kind: Resume, Key: k, Reason: "INC-9 over"})
	var outcomes []string
	for _, l := range e.auditLines() {
		outcomes = append(outcomes, l.Action+" "+l.Outcome)
	}
	want := []string{"pause done"}
	for range refused - 1 {
		want = append(want, "resume refused")
	}
	want = append(want, "resume done")
	if !slices.Equal(outcomes, want) {
		t.Errorf("audit lines (every one a whole entry):\n got  %q\n want %q", outcomes, want)
	}
}
