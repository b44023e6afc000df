package undo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// previews is a Differ that previews Stacks: local says whether the
// program runs here.
type previews struct {
	diffs
	local bool
	res   pulumirun.Result
	err   error
	ran   int
}

func (p *previews) Locate(_ context.Context, k model.Key) (*stackops.Location, error) {
	loc := &stackops.Location{Key: k, Stack: "acme/shop/prod"}
	if p.local {
		loc.Local = &config.StackProgram{Unit: k.Ref(), Dir: "/src/shop"}
	}
	return loc, nil
}

func (p *previews) Preview(context.Context, model.Key, func(pulumirun.Event)) (*stackops.Reviewed, error) {
	p.ran++
	if p.err != nil {
		return nil, p.err
	}
	return &stackops.Reviewed{Result: p.res}, nil
}

// A Stack whose program runs here is forecast by its preview; one the
// operator runs from its repository names the preview command; a preview
// that fails says why.
func TestAStacksResumeIsForecastByItsPreviewWhenItRunsHere(t *testing.T) {
	res := pulumirun.Result{Steps: []pulumirun.Step{
		{Op: pulumirun.OpSame, Type: "pulumi:index:Stash", Name: "kept"},
		{Op: pulumirun.OpUpdate, Type: "pulumi:index:Stash", Name: "logs", Diffs: []pulumirun.PropertyDiff{{Path: "input.days", Kind: pulumirun.DiffUpdate, Old: "7", New: "30"}}},
		{Op: pulumirun.OpCreate, Type: "pulumi:index:Stash", Name: "token", Diffs: []pulumirun.PropertyDiff{{Path: "input", Kind: pulumirun.DiffAdd, New: pulumirun.SecretPlaceholder}}},
	}}
	p := &previews{local: true, res: res}
	lines := Of(context.Background(), p, resumePlan(model.EnginePulumi, "false")).Lines(prod)
	want := []string{"pulumi:index:Stash logs: update", "  input.days: 7 → 30", "pulumi:index:Stash token: create", `  input: (absent) → "[secret]"`}
	if strings.Join(lines[1:], "\n") != strings.Join(want, "\n") || !strings.Contains(lines[0], "preview of stack acme/shop/prod on this machine") {
		t.Errorf("lines %q", lines)
	}

	remote := &previews{}
	if got := Of(context.Background(), remote, resumePlan(model.EnginePulumi, "false")).Lines(prod)[0]; remote.ran != 0 || !strings.HasSuffix(got, "preview pulumi/argocd/shop") {
		t.Errorf("an operator-run Stack: previews run %d, line %q", remote.ran, got)
	}
	failing := &previews{local: true, err: errors.New("the stack is currently locked")}
	if s := Of(context.Background(), failing, resumePlan(model.EnginePulumi, "false")).Summary(); s != "cannot tell what the controller will change: the stack is currently locked" {
		t.Errorf("a failed preview: %q", s)
	}
}
