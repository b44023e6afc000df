package cli

import (
	"reflect"
	"testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/doctor"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Values doctor prints come from the cluster: a lock id or a name with
// spaces, quotes or $( ) is one argument of the printed command, as sh
// reads it, and runs nothing.
func TestDoctorsCommandsQuoteWhatComesFromTheCluster(t *testing.T) {
	lock := `f2ab; echo "$(id)" 'x'`
	f := doctor.Finding{Key: model.Key{Engine: model.EngineTerraform, Namespace: "flux-system", Name: "rds"}, Fix: actions.ForceUnlock, FixFlags: []string{"--lock", lock}}
	want := []string{"driftdeck", "force-unlock", "terraform/flux-system/rds", "--reason", doctor.FixReason, "--lock", lock}
	if got := shellWords(t, f.Command("terraform/flux-system/rds")); !reflect.DeepEqual(got, want) {
		t.Errorf("the force-unlock as sh reads it: %q, want %q", got, want)
	}
	patch := `[{"op":"remove","path":"/status/currentUpdate"}]`
	p := doctor.Finding{Key: model.Key{Engine: model.EnginePulumi, Namespace: "in fra", Name: "dns'zones"}, StatusPatch: patch}
	want = []string{"kubectl", "patch", "stacks.pulumi.com", "dns'zones", "-n", "in fra", "--subresource=status", "--type=json", "-p", patch}
	if got := shellWords(t, p.Command("pulumi/in fra/dns'zones")); !reflect.DeepEqual(got, want) {
		t.Errorf("the status patch as sh reads it: %q, want %q", got, want)
	}
}
