package cli

import (
	"reflect"
	"testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/doctor"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Values doctor prints come from the cluster: a lock id, a cause or a name
// with spaces, quotes or $( ) is one argument of the printed command, as sh
// reads it, and runs nothing; the cause in --reason has its escape
// sequences made visible. The command names the kubeconfig and context the
// unit was found in.
func TestDoctorsCommandsQuoteWhatComesFromTheCluster(t *testing.T) {
	lock := `f2ab; echo "$(id)" 'x'`
	o := cmdline.Origin{Kubeconfig: "/home/ops/kube configs/prod"}
	f := doctor.Finding{Key: model.Key{Context: "prod eu", Engine: model.EngineTerraform, Namespace: "flux-system", Name: "rds"},
		State: "stuck", Cause: "lock held \x1b]0;owned\x07 by 'ci'; $(reboot)", Fix: actions.ForceUnlock, FixFlags: []string{"--lock", lock}}
	want := []string{"driftdeck", "--kubeconfig", "/home/ops/kube configs/prod", "--context", "prod eu", "force-unlock", "terraform/flux-system/rds",
		"--reason", `doctor: lock held \x1b]0;owned\x07 by 'ci'; $(reboot)`, "--lock", lock}
	if got := shellWords(t, f.Command(o)); !reflect.DeepEqual(got, want) {
		t.Errorf("the force-unlock as sh reads it: %q, want %q", got, want)
	}
	patch := `[{"op":"remove","path":"/status/currentUpdate"}]`
	p := doctor.Finding{Key: model.Key{Context: "prod eu", Engine: model.EnginePulumi, Namespace: "in fra", Name: "dns'zones"}, StatusPatch: patch}
	want = []string{"kubectl", "--kubeconfig", "/home/ops/kube configs/prod", "--context", "prod eu", "patch", "stacks.pulumi.com", "dns'zones", "-n", "in fra", "--subresource=status", "--type=json", "-p", patch}
	if got := shellWords(t, p.Command(o)); !reflect.DeepEqual(got, want) {
		t.Errorf("the status patch as sh reads it: %q, want %q", got, want)
	}
	// kubectl cannot reach the demo: pasted, the patch would go to the
	// current kubeconfig context instead.
	if c := p.Command(cmdline.Origin{Demo: true}); c != "" {
		t.Errorf("on the demo doctor prints a kubectl command, which would act on another cluster: %s", c)
	}
}
