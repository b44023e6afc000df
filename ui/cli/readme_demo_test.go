package cli

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
)

// readmeExits are the README examples that do not exit 0 when all is well,
// by their first words, with the code the README gives them.
var readmeExits = map[string]int{
	"driftdeck diff argocd/argocd/kafka":                1, // differences, as kubectl diff
	"driftdeck diff kustomization/team-web/web-backend": 1,
	"driftdeck diff helmrelease/team-web/web-cache":     1, // the chart moved to 0.5.0
	"driftdeck diff terraform/flux-system/eks-cluster":  1,
	"driftdeck diff terraform/flux-system/iam-roles":    1, // drift found
	"driftdeck drift pulumi/infra/analytics-preview":    1, // the network reference drifted
	"driftdeck doctor -A":                               1, // units are stuck
}

var optionalPart = regexp.MustCompile(`\s*\[[^\]]*\]`)

// A runbook can be walked through on the demo: every example of the README,
// with --demo, in the README's order, each starting from the state the one
// before it left, exits as the README says (0, or its own code for
// differences and stuck units). [optional] parts are left
// out; a command that would ask on a terminal is given --yes, as a script
// gives it. A sync the one before started may still run when the next
// command comes, as it would for a reader: that command is refused ("another
// operation is in progress"), and run again once the unit's run is idle,
// as the refusal says.
func TestEveryREADMEExampleRunsOnTheDemoInOrder(t *testing.T) {
	pulumiruntest.CLI(t)
	pulumiruntest.ReleaseHelper(t)
	localrendertest.Use(t)
	isolate(t)
	for _, line := range readmeLines(t, func(l string) string { return optionalPart.ReplaceAllString(l, "") }) {
		words := shellWords(t, line)
		args := append([]string{"--demo"}, words[1:]...)
		if asksOnATerminal(t, words[1:]) {
			args = append(args, "--yes")
		}
		code, out, stderr := run(t, args...)
		if code == exitRefused && strings.Contains(stderr, "another operation is in progress") {
			waitIdle(t, words[2])
			code, out, stderr = run(t, args...)
		}
		want := 0
		for prefix, c := range readmeExits {
			if strings.HasPrefix(line, prefix) {
				want = c
			}
		}
		if code != want {
			t.Errorf("README example %q: exit %d, want %d\n%s%s", line, code, want, out, stderr)
		}
	}
}

// asksOnATerminal says whether the command would ask before writing.
func asksOnATerminal(t *testing.T, words []string) bool {
	t.Helper()
	root := newRoot(&globals{kube: newKubeFlags(), in: strings.NewReader(""), out: &strings.Builder{}, errOut: &strings.Builder{}})
	cmd, _, err := root.Find(words)
	if err != nil {
		t.Fatal(err)
	}
	yes := cmd.Flags().Lookup("yes")
	return yes != nil && !strings.Contains(yes.Usage, "never asks") && !slices.Contains(words, "--yes")
}

// waitIdle waits for the unit's run to end, as a reader told "wait for it"
// does, reading it with status.
func waitIdle(t *testing.T, unit string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, out, stderr := run(t, "--demo", "status", unit, "-o", "json")
		var recs []unitRecord
		if code == 0 && json.Unmarshal([]byte(out), &recs) == nil && len(recs) == 1 && recs[0].Run != "running" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still runs after 2 minutes: exit %d\n%s%s", unit, code, out, stderr)
		}
		time.Sleep(time.Second)
	}
}
