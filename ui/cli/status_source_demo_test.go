package cli

import (
	"encoding/json"
	"testing"
)

// status -o json says how the source of each Flux unit is doing, from the
// source object: the demo's web-config reads a GitRepository that cannot
// authenticate, and is stuck on that reason.
func TestStatusJSONNamesTheSourcesReadiness(t *testing.T) {
	code, out, stderr := run(t, "--demo", "status", "-A", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var recs []unitRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs {
		if r.Unit != "kustomization/team-web/web-config" {
			continue
		}
		found = true
		s := r.Source
		if s == nil || s.Ref != "GitRepository/team-web/web-config" || !s.Exists || s.Ready != "False" || s.Reason != "AuthenticationFailed" || r.Run != "stuck" {
			t.Errorf("web-config: run %s, source %+v", r.Run, s)
		}
	}
	if !found {
		t.Fatal("web-config is not in the output")
	}
}
