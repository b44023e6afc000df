// Package audittest reads an audit log back for tests.
package audittest

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/driftdeck/driftdeck/backend/audit"
)

// Entries are the audit log's entries at path, in order; none while
// nothing has been audited (no file yet). A line that is not an entry
// fails the test: the log never leaves a torn line.
func Entries(t testing.TB, path string) []audit.Entry {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e audit.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
