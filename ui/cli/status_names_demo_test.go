package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestStatusPrintsOnlyTheUnitsNamedInTheirOrder(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "status", "pulumi/infra/network-prod", "argocd/argocd/guestbook")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := firstColumn(out); !slices.Equal(got, []string{"UNIT", "pulumi/infra/network-prod", "argocd/argocd/guestbook"}) {
		t.Errorf("status of two units printed %q:\n%s", got, out)
	}
	code, out, stderr = run(t, "--demo", "status", "argocd/argocd/guestbook", "demo:pulumi/infra/network-prod", "-o", "json")
	if code != 0 {
		t.Fatalf("-o json: exit %d: %s", code, stderr)
	}
	if got := jsonUnits(t, out); !slices.Equal(got, []string{"argocd/argocd/guestbook", "pulumi/infra/network-prod"}) {
		t.Errorf("status -o json of two units printed %q", got)
	}
}

// As kubectl get with a missing name: the units found are printed, then the
// missing ones are an error, exit 5.
func TestStatusOfAUnitThatDoesNotExistExitsNotFound(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "status", "argocd/argocd/guestbook", "argocd/argocd/nothing-here")
	if code != exitNotFound || !strings.Contains(stderr, "not found") || !strings.Contains(stderr, "argocd/argocd/nothing-here") {
		t.Errorf("exit %d, stderr %q; want exit 5 naming argocd/argocd/nothing-here", code, stderr)
	}
	if got := firstColumn(out); !slices.Equal(got, []string{"UNIT", "argocd/argocd/guestbook"}) {
		t.Errorf("the unit found is not printed alone: %q\n%s", got, out)
	}
	code, out, stderr = run(t, "--demo", "status", "argocd/argocd/nothing-here", "argocd/argocd/guestbook", "-o", "json")
	if code != exitNotFound || !strings.Contains(stderr, "argocd/argocd/nothing-here") {
		t.Errorf("-o json: exit %d, stderr %q; want exit 5", code, stderr)
	}
	if got := jsonUnits(t, out); !slices.Equal(got, []string{"argocd/argocd/guestbook"}) {
		t.Errorf("-o json printed %q, want the unit found", got)
	}
}

func firstColumn(table string) []string {
	var first []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		first = append(first, strings.Fields(line)[0])
	}
	return first
}

func jsonUnits(t *testing.T, out string) []string {
	t.Helper()
	var recs []struct{ Unit string }
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var units []string
	for _, r := range recs {
		units = append(units, r.Unit)
	}
	return units
}
