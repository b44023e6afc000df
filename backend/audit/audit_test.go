package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestAppendWritesOneJSONLinePerEntryConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "driftdeck", "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Append(Entry{Time: time.Now(), Actor: "alice", Unit: "argocd/a/b", Action: "pause", Outcome: "done", Patch: json.RawMessage(`[{"op":"test"}]`)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Actor != "alice" || string(e.Patch) != `[{"op":"test"}]` {
			t.Fatalf("line %d: %q (%v)", n, sc.Text(), err)
		}
	}
	if n != 20 {
		t.Fatalf("%d lines, want 20", n)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the audit log is readable by others: %v", st.Mode())
	}
}

func TestDefaultPathFollowsXDG(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if p, _ := DefaultPath(); p != "/x/state/driftdeck/audit.jsonl" {
		t.Fatal(p)
	}
}
