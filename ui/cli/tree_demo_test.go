package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestTreePrintsTheDemoApplicationSetWithItsApplications(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "tree", "applicationset/argocd/storefront-services")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[1], "applicationset/argocd/storefront-services") || !strings.Contains(lines[1], "11 below:") {
		t.Fatalf("the first line is not the ApplicationSet with its summary:\n%s", out)
	}
	if !strings.Contains(out, "├─ argocd/argocd/checkout-web") || !strings.HasPrefix(lines[len(lines)-1], "└─ argocd/argocd/") {
		t.Fatalf("the Applications are not drawn under it:\n%s", out)
	}

	code, out, stderr = run(t, "--demo", "tree", "argocd/argocd/platform-root", "-o", "json")
	if code != 0 {
		t.Fatalf("-o json: exit %d: %s", code, stderr)
	}
	var root subtreeRecord
	if err := json.Unmarshal([]byte(out), &root); err != nil {
		t.Fatalf("-o json is not JSON: %v\n%s", err, out)
	}
	var names []string
	for _, c := range root.Children {
		names = append(names, c.Unit)
		if !slices.Equal(c.Parents, []string{"argocd/argocd/platform-root"}) {
			t.Errorf("%s names parents %v", c.Unit, c.Parents)
		}
	}
	if len(names) != 14 || !slices.Contains(names, "argocd/argocd/velero") || root.Below["stuck"] != 1 {
		t.Fatalf("the app of apps' children %v, below %v", names, root.Below)
	}

	// A Stack with two prerequisites sits under the first and names both.
	code, out, _ = run(t, "--demo", "tree", "pulumi/infra/iam-baseline")
	if code != 0 || !strings.Contains(lineOf(out, "pulumi/infra/data-lake"), "also under pulumi/infra/network-prod") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, _ = run(t, "--demo", "tree", "pulumi/infra/network-prod")
	if code != 0 || !strings.Contains(out, "also over (shown under their first parent): pulumi/infra/data-lake") {
		t.Fatalf("the second prerequisite does not name the Stack waiting on it: exit %d:\n%s", code, out)
	}
}

func TestTreeExitCodes(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"tree", "applicationset/argocd/no-such-set"}, exitNotFound, "no such unit"},
		{[]string{"tree", "storefront-services"}, exitUsage, "want <engine>/<namespace>/<name>"},
		{[]string{"tree"}, exitUsage, "accepts 1 arg"},
		{[]string{"tree", "argocd/argocd/platform-root", "-o", "yaml"}, exitUsage, "want table or json"},
	} {
		code, _, stderr := run(t, append([]string{"--demo"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d %q, want %d saying %q", c.args, code, stderr, c.code, c.says)
		}
	}
}

// Every record of status -o json names its parents: the ApplicationSet, the
// app of apps, the prerequisite Stacks, the Kustomization depended on; a
// root names none (an empty list, never null).
func TestStatusJSONNamesEveryRecordsParents(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "status", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, `"parents": null`) {
		t.Fatal("a record says parents: null")
	}
	var recs []unitRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	parents := map[string][]string{}
	for _, r := range recs {
		parents[r.Unit] = r.Parents
	}
	for unit, want := range map[string][]string{
		"argocd/argocd/checkout-web":                {"applicationset/argocd/storefront-services"},
		"argocd/argocd/kyverno":                     {"argocd/argocd/platform-root"},
		"pulumi/infra/data-lake":                    {"pulumi/infra/iam-baseline", "pulumi/infra/network-prod"},
		"kustomization/flux-system/infra-configs":   {"kustomization/flux-system/infra-controllers"},
		"argocd/argocd/platform-root":               {},
		"applicationset/argocd/storefront-services": {},
	} {
		got, ok := parents[unit]
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s: parents %v (present %v), want %v", unit, got, ok, want)
		}
	}
}

// A selection never picks the ApplicationSet's row: no action reaches it.
func TestBulkSelectionLeavesOutApplicationSets(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "--dry-run", "refresh", "-n", "argocd")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out+stderr, "applicationset/") || !strings.Contains(stderr, "argocd/argocd/checkout-web") {
		t.Fatalf("the selection:\n%s\n%s", stderr, out)
	}
}
