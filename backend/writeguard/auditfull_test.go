package writeguard

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

const childEnv = "DRIFTDECK_GUARD_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "write-with-full-audit-log" {
		writeWithFullAuditLog(os.Getenv("AUDIT_PATH"))
	}
	os.Exit(m.Run())
}

// guardResult is what the child reports back.
type guardResult struct {
	WriteCalled bool
	Refusal     bool
	Err         string
	Warnings    []string
}

// writeWithFullAuditLog attempts a write while the audit log cannot grow: the
// process's file size limit is the log's current size, the way a full disk
// refuses every further byte.
func writeWithFullAuditLog(path string) {
	signal.Ignore(syscall.SIGXFSZ)
	st, err := os.Stat(path)
	if err != nil {
		os.Exit(3)
	}
	lim := uint64(st.Size())
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		os.Exit(3)
	}
	log, _ := audit.Open(path)
	g := &Guard{Audit: log, Cluster: func(string) (*kube.Cluster, bool) { return nil, false }}
	var r guardResult
	w, err := g.Do(context.Background(), Attempt{
		Key: model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "guestbook"}, Action: "pause", Reason: "INC-1",
	}, func(*Write) error { r.WriteCalled = true; return nil })
	r.Refusal, r.Warnings = IsRefusal(err), w.Warnings
	if err != nil {
		r.Err = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(r)
	os.Exit(0)
}

// A write the audit log cannot record is not made: refused, with the reason,
// and the log is left as it was.
func TestAWriteTheAuditLogCannotRecordIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, _ := audit.Open(path)
	if err := log.Append(audit.Entry{Unit: "argocd/argocd/earlier", Action: "pause", Outcome: OutcomeDone}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=write-with-full-audit-log", "AUDIT_PATH="+path)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var r guardResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("child said %q", out)
	}
	if r.WriteCalled {
		t.Fatal("the write was made although the audit log could not record it")
	}
	if !r.Refusal || !strings.Contains(r.Err, "audit log") || !strings.Contains(r.Err, "file size limit") {
		t.Fatalf("want a refusal naming the audit log, got %+v", r)
	}
	if len(r.Warnings) == 0 {
		t.Errorf("the unrecorded refusal itself must be reported as a warning: %+v", r)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatalf("the audit log changed: %q", after[len(before):])
	}
	t.Log(r.Err)
}
