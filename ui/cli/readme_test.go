package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/driftdeck/driftdeck/backend/model"
)

// readmeExamples returns the command lines of the README's runbook block,
// with comments dropped and [optional] parts kept (they must parse too).
func readmeExamples(t *testing.T) []string {
	return readmeLines(t, func(l string) string { return strings.NewReplacer("[", "", "]", "").Replace(l) })
}

// readmeLines returns the command lines of the README's runbook block, with
// comments dropped and each line passed through edit.
func readmeLines(t *testing.T, edit func(string) string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "The same actions work from the command line")
	if !ok {
		t.Fatal("README: no runbook examples")
	}
	_, block, _ = strings.Cut(block, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if i := strings.Index(l, "  #"); i >= 0 {
			l = l[:i]
		}
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, edit(l))
		}
	}
	return lines
}

func TestEveryREADMEExampleParsesAndNamesDemoUnits(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "status", "-A", "-o", "json")
	if code != 0 {
		t.Fatalf("demo status: exit %d: %s", code, stderr)
	}
	var recs []unitRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	units, namespaces := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		units[r.Unit], namespaces[r.Namespace] = true, true
	}
	examples := readmeExamples(t)
	if len(examples) < 10 {
		t.Fatalf("found only %d README examples", len(examples))
	}
	for _, line := range examples {
		words := shellWords(t, line)
		if words[0] != "driftdeck" {
			t.Errorf("README example %q does not start with driftdeck", line)
			continue
		}
		root := newRoot(&globals{kube: newKubeFlags(), in: strings.NewReader(""), out: &strings.Builder{}, errOut: &strings.Builder{}})
		cmd, rest, err := root.Find(words[1:])
		if err == nil {
			err = cmd.ParseFlags(rest)
		}
		if err == nil {
			err = cmd.ValidateArgs(cmd.Flags().Args())
		}
		if err != nil {
			t.Errorf("README example %q: %v", line, err)
			continue
		}
		for _, a := range cmd.Flags().Args() {
			if !strings.Contains(a, "/") {
				continue
			}
			k, err := model.ParseRef(a)
			if err != nil {
				t.Errorf("README example %q: %v", line, err)
			} else if !units[k.Ref()] {
				t.Errorf("README example %q names %s, which the demo does not have", line, k.Ref())
			}
		}
		f := cmd.Flags()
		if ns, _ := root.PersistentFlags().GetString("namespace"); ns != "" && !namespaces[ns] {
			t.Errorf("README example %q: the demo has no namespace %s", line, ns)
		}
		if sel := f.Lookup("selector"); sel != nil && sel.Value.String() != "" {
			if _, err := labels.Parse(sel.Value.String()); err != nil {
				t.Errorf("README example %q: -l: %v", line, err)
			}
		}
		if u := f.Lookup("until"); u != nil && u.Value.String() != "" {
			if _, err := parseUntil(u.Value.String(), time.Now()); err != nil {
				t.Errorf("README example %q: %v", line, err)
			}
		}
		if r := f.Lookup("resource"); r != nil && r.Changed {
			for _, v := range strings.Split(strings.Trim(r.Value.String(), "[]"), ",") {
				if _, err := parseResource(v); err != nil {
					t.Errorf("README example %q: %v", line, err)
				}
			}
		}
	}
}
