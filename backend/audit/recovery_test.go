package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The child modes re-run this test binary: a file size limit or a SIGKILL
// must hit one process, not the whole test run.
const childEnv = "DRIFTDECK_AUDIT_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "append-forever":
		appendForever(os.Getenv("AUDIT_PATH"))
	case "append-over-limit":
		appendOverLimit(os.Getenv("AUDIT_PATH"))
	}
	os.Exit(m.Run())
}

func child(t *testing.T, mode, path string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "AUDIT_PATH="+path)
	return cmd
}

func entry(i int) Entry {
	return Entry{Time: time.Now(), Actor: "alice@example.com", Unit: "argocd/argocd/guestbook", Action: "pause",
		Reason: "INC-" + strconv.Itoa(i), Outcome: "done", Patch: json.RawMessage(`[{"op":"test","path":"/metadata/resourceVersion","value":"1"}]`),
		Previous: strings.Repeat("p", 1500)}
}

func appendForever(path string) {
	l, err := Open(path)
	if err != nil {
		os.Exit(3)
	}
	for i := 0; ; i++ {
		if err := l.Append(entry(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
	}
}

// appendOverLimit appends one line under a file size limit that lets only
// part of it reach the disk, the way a full disk cuts a write short.
func appendOverLimit(path string) {
	signal.Ignore(syscall.SIGXFSZ) // the write then fails with EFBIG instead of killing the process
	st, err := os.Stat(path)
	if err != nil {
		os.Exit(3)
	}
	lim := uint64(st.Size()) + 100
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		os.Exit(3)
	}
	l, _ := Open(path)
	err = l.Append(entry(99))
	fmt.Print(err)
	os.Exit(0)
}

func readLines(t *testing.T, path string) (whole []Entry, torn []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			torn = append(torn, sc.Text())
			continue
		}
		whole = append(whole, e)
	}
	return whole, torn
}

// waitForAppends waits until the file at path grows.
func waitForAppends(t *testing.T, path string) {
	t.Helper()
	size := func() int64 {
		if st, err := os.Stat(path); err == nil {
			return st.Size()
		}
		return 0
	}
	before := size()
	for deadline := time.Now().Add(60 * time.Second); size() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the writers appended nothing within 60 s")
		}
	}
}

// Writers killed at random moments (SIGKILL, no deferred code runs) leave
// whole lines, each one entry. Linux may cut a write short when the kill
// lands while it copies a line across a page boundary: such a cut-off line
// is ended by the next append, so it is at most one per kill, a prefix of
// one entry, never glued to another.
func TestAppendKilledMidStreamLeavesNoTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	for r := 0; r < rounds; r++ {
		// Two writers at once, as two driftdeck processes on one machine.
		a, b := child(t, "append-forever", path), child(t, "append-forever", path)
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill lands mid-stream: once the writers append, however long a
		// busy machine took to start them.
		waitForAppends(t, path)
		time.Sleep(time.Duration(r*7%40) * time.Millisecond)
		_ = a.Process.Kill()
		_ = b.Process.Kill()
		_ = a.Wait()
		_ = b.Wait()
	}
	whole, torn := readLines(t, path)
	if len(torn) > 2*rounds {
		t.Fatalf("%d torn lines among %d after %d kills, first %.80q", len(torn), len(whole)+len(torn), 2*rounds, torn[0])
	}
	for _, l := range torn {
		if !strings.HasPrefix(l, `{"time":`) || strings.Count(l, `{"time":`) != 1 {
			t.Fatalf("a torn line is not the start of one entry cut off: %.200q", l)
		}
	}
	if len(whole) < rounds {
		t.Fatalf("only %d lines written in %d rounds: the writers did not run", len(whole), rounds)
	}
	t.Logf("%d rounds of two writers killed mid-stream: %d whole lines, none torn", rounds, len(whole))
}

// A full disk (here a file size limit that lets 100 bytes of the line
// through) makes Append fail and leaves the log as it was, not with a
// half line.
func TestAppendCutShortLeavesNoHalfLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, _ := Open(path)
	if err := l.Append(entry(1)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	out, err := child(t, "append-over-limit", path).Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Fatalf("Append under the limit returned %q, want the EFBIG error", out)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatalf("the failed append left %d bytes behind: %q", len(after)-len(before), after[len(before):])
	}
}

// A line torn by a crash (the process died inside a write that had reached
// the disk only in part) does not swallow the next entry.
func TestAppendAfterATornLineStartsOnANewLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, _ := Open(path)
	if err := l.Append(entry(1)); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","actor":"ali`)
	f.Close()
	if err := l.Append(entry(2)); err != nil {
		t.Fatal(err)
	}
	whole, torn := readLines(t, path)
	if len(whole) != 2 || whole[1].Reason != "INC-2" {
		t.Fatalf("entries after a torn line: %+v", whole)
	}
	if len(torn) != 1 {
		t.Fatalf("the torn line must stay alone on its line: %q", torn)
	}
}

func TestWritableRefusesALogThatCannotBeOpened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, _ := Open(path)
	if err := l.Writable(); err != nil {
		t.Fatalf("an empty log on a disk with room: %v", err)
	}
	// A directory where the file should be: no one, root included, appends to it.
	os.Remove(path)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := l.Writable(); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("a log that cannot be opened for appending: %v", err)
	}
}
