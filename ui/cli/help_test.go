package cli

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Every --engine flag lists every engine the command line takes, and the
// root help names every reconciler driftdeck shows.
func TestHelpNamesEveryEngine(t *testing.T) {
	root := newRoot(&globals{kube: newKubeFlags(), in: strings.NewReader(""), out: &strings.Builder{}, errOut: &strings.Builder{}})
	flags := 0
	for _, cmd := range root.Commands() {
		f := cmd.Flags().Lookup("engine")
		if f == nil {
			continue
		}
		flags++
		for _, e := range model.Engines {
			if !strings.Contains(f.Usage, string(e)) {
				t.Errorf("%s --engine: %q does not name %s", cmd.Name(), f.Usage, e)
			}
		}
	}
	if flags < 2 {
		t.Errorf("found %d commands with --engine, want status and the bulk actions", flags)
	}
	_, out, _ := run(t, "--help")
	for _, engine := range []string{"Argo CD Application", "Pulumi operator Stack", "Flux Kustomization", "HelmRelease", "tofu-controller Terraform"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), engine) {
			t.Errorf("driftdeck --help does not name %s:\n%s", engine, out)
		}
	}
}

// refresh asks nothing: its help must not say it asks for confirmation or
// needs --yes; a destructive action's help still does.
func TestRefreshHelpDoesNotPromiseAConfirmation(t *testing.T) {
	_, out, _ := run(t, "refresh", "--help")
	text := strings.Join(strings.Fields(out), " ")
	if strings.Contains(text, "asks for confirmation") || strings.Contains(text, "--yes is required") || !strings.Contains(text, "asks nothing") {
		t.Errorf("refresh --help:\n%s", out)
	}
	_, out, _ = run(t, "sync", "--help")
	if text := strings.Join(strings.Fields(out), " "); !strings.Contains(text, "asks for confirmation on the terminal") || !strings.Contains(text, "without a terminal --yes is required") {
		t.Errorf("sync --help no longer says it asks for confirmation:\n%s", out)
	}
}
