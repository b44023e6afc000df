package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// D on a Stack streams its refresh preview: the drifted resource with what
// changed, then the count; it offers nothing to approve.
func TestDriftCheckStreamsTheDriftedResourcesAndApprovesNothing(t *testing.T) {
	a, be := newTestApp(t, 140, 30)
	var checked model.Key
	be.driftCheck = func(_ context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.DriftReport, error) {
		checked = k
		drifted := pulumirun.Step{Seq: 2, Op: pulumirun.OpUpdate, Type: "pulumi:pulumi:StackReference", Name: "organization/network/prod",
			Diffs: []pulumirun.PropertyDiff{{Path: "outputs.vpcId", Kind: pulumirun.DiffUpdate, Old: `"vpc-old"`, New: `"vpc-new"`}}}
		same := pulumirun.Step{Seq: 1, Op: pulumirun.OpSame, Type: "pulumi:index:Stash", Name: "events-bucket"}
		onEvent(pulumirun.Event{Step: &same})
		onEvent(pulumirun.Event{Step: &drifted})
		return &stackops.DriftReport{Result: pulumirun.Result{Steps: []pulumirun.Step{same, drifted}, Elapsed: 2 * time.Second}}, nil
	}
	ch := make(chan tea.Msg, 64)
	selectUnit(t, a, "edge-cdn")
	sendKey(a, ch, "D")
	s, ok := a.top().(*previewScreen)
	if !ok {
		t.Fatalf("D on a Stack opened no drift check:\n%s", plain(a))
	}
	deliver(t, a, ch, func() bool { return !s.running && strings.Contains(flat(a), "vpc-new") })
	text := flat(a)
	for _, want := range []string{"drift check of pulumi/", "organization/network/prod", `"vpc-old" => "vpc-new"`, "1 of 2 resources drifted"} {
		if !strings.Contains(text, want) {
			t.Errorf("the drift check does not show %q:\n%s", want, plain(a))
		}
	}
	if checked.Name != "edge-cdn" {
		t.Errorf("checked %v; want the Stack under the cursor", checked)
	}
	sendKey(a, ch, "A")
	if a.top() != screen(s) || !strings.Contains(flat(a), "a drift check applies nothing") {
		t.Errorf("A on a drift check must say it applies nothing:\n%s", plain(a))
	}
}

func TestDriftCheckOfAnApplicationSaysWhatToUseInstead(t *testing.T) {
	a, be := newTestApp(t, 140, 30)
	be.driftCheck = func(context.Context, model.Key, func(pulumirun.Event)) (*stackops.DriftReport, error) {
		t.Error("an Application was drift-checked")
		return nil, nil
	}
	selectUnit(t, a, "checkout")
	press(a, "D")
	if !topIs[*listScreen](a) || !strings.Contains(flat(a), "reads a Pulumi Stack's resources") {
		t.Errorf("D on an Application must say it is for Stacks:\n%s", plain(a))
	}
}
