package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// upstreamProgram exports what a downstream stack reads through a
// StackReference: an endpoint and a secret token.
func upstreamProgram(endpoint, token *string) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		ctx.Export("endpoint", pulumi.String(*endpoint))
		ctx.Export("token", pulumi.ToSecret(pulumi.String(*token)))
		return nil
	}
}

// downstreamProgram reads the upstream stack's outputs: the builtin
// provider reads a StackReference on refresh, so a change made to the
// upstream stack out of band is drift no provider plugin is needed for.
func downstreamProgram(upstream string) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		ref, err := pulumi.NewStackReference(ctx, upstream, nil)
		if err != nil {
			return err
		}
		ctx.Export("endpoint", ref.GetOutput(pulumi.String("endpoint")))
		return nil
	}
}

func TestPulumiDriftCheckListsWhatChangedOutOfBandAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	endpoint, token := "db-1.internal:5432", "hunter2-first"
	up := fileTarget(t, "drift", "upstream")
	up.Program = upstreamProgram(&endpoint, &token)
	apply(t, up)
	down := up
	down.Stack = "downstream"
	down.Program = downstreamProgram("organization/drift/upstream")
	apply(t, down)

	res, err := DriftCheck(ctx, down, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Drifted(); len(d) != 0 {
		t.Fatalf("drift right after an up: %+v", d)
	}

	endpoint, token = "db-2.internal:5432", "hunter2-second" // the out-of-band change
	apply(t, up)
	var streamed []pulumirun.Step
	res, err = DriftCheck(ctx, down, func(e pulumirun.Event) {
		if e.Step != nil {
			streamed = append(streamed, *e.Step)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	drifted := res.Drifted()
	if len(drifted) != 1 || drifted[0].Type != "pulumi:pulumi:StackReference" || drifted[0].Op != pulumirun.OpUpdate {
		t.Fatalf("drifted = %+v; want the StackReference, updated", drifted)
	}
	var diffs []string
	for _, d := range drifted[0].Diffs {
		diffs = append(diffs, d.String())
	}
	want := `outputs.endpoint: "db-1.internal:5432" => "db-2.internal:5432"`
	if !strings.Contains(strings.Join(diffs, "\n"), want) {
		t.Errorf("diffs %q; want %q", diffs, want)
	}
	for _, s := range streamed {
		for _, d := range s.Diffs {
			if strings.Contains(d.Old+d.New, "hunter2") {
				t.Errorf("a secret output is shown: %s", d)
			}
		}
	}
	if len(streamed) == 0 || streamed[len(streamed)-1].Op == pulumirun.OpRefresh {
		t.Errorf("steps were not streamed with their verdict: %+v", streamed)
	}

	// preview-only: the state still holds the old endpoint, so the check
	// finds the same drift again.
	again, err := DriftCheck(ctx, down, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Drifted()) != 1 {
		t.Errorf("the drift check wrote the state: second check found %+v", again.Drifted())
	}
}

// apply runs an up of the target's program.
func apply(t *testing.T, tg Target) {
	t.Helper()
	s, err := open(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := s.stack.Up(context.Background()); err != nil {
		t.Fatal(err)
	}
}
