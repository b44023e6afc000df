package changereq

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/driftdeck/driftdeck/backend/audit"
)

// readAudit reads an audit log's lines.
func readAudit(t *testing.T, path string) []audit.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Entry
	s := bufio.NewScanner(f)
	for s.Scan() {
		var e audit.Entry
		if err := json.Unmarshal(s.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}
