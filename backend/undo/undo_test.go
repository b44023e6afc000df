package undo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
)

// diffs answers a fixed diff of configmaps, counting the calls.
type diffs struct {
	pairs []diff.Pair
	err   error
	calls int
}

func (d *diffs) Diff(_ context.Context, _ model.Key) (*argodiff.Result, error) {
	d.calls++
	if d.err != nil {
		return nil, d.err
	}
	r, err := diff.Objects(d.pairs, diff.Options{})
	if err != nil {
		return nil, err
	}
	return &argodiff.Result{Report: r, Source: "local render of repo@v1"}, nil
}

func configMap(name string, data map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "shop"}, "data": data}
}

func resumePlan(engine model.Engine, previous string) *actions.Plan {
	return &actions.Plan{Request: actions.Request{Kind: actions.Resume, Key: model.Key{Context: "prod", Engine: engine, Namespace: "argocd", Name: "shop"}}, Previous: previous}
}

var prod = cmdline.Origin{}

func TestAResumeOfSelfHealListsTheHandFixItReverts(t *testing.T) {
	d := &diffs{pairs: []diff.Pair{
		{Live: configMap("edited", map[string]any{"value": "edited by hand"}), Desired: configMap("edited", map[string]any{"value": "v1"})},
		{Live: configMap("same", map[string]any{"v": "1"}), Desired: configMap("same", map[string]any{"v": "1"})},
		{Live: configMap("extra", map[string]any{"v": "1"})},
	}}
	f := Of(context.Background(), d, resumePlan(model.EngineArgoCD, `{"prune":false,"selfHeal":true}`))
	got := strings.Join(f.Lines(prod), "\n")
	want := `self-heal is back: the controller writes these within seconds, reverting live edits (local render of repo@v1):
ConfigMap/shop/edited: reverted
  data.value: "edited by hand" → "v1"
ConfigMap/shop/extra: left in place (prune is off)`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if s := f.Summary(); s != "2 objects will change: 1 reverted, 1 left in place (prune is off)" {
		t.Errorf("summary %q", s)
	}
}

func TestAResumeThatKeepsAutoSyncOffReadsNoDiff(t *testing.T) {
	d := &diffs{}
	f := Of(context.Background(), d, resumePlan(model.EngineArgoCD, `{"enabled":false,"selfHeal":true}`))
	if d.calls != 0 || !strings.Contains(f.Summary(), "keeps auto-sync off") {
		t.Errorf("diff read %d times, forecast %q", d.calls, f.Summary())
	}
}

func TestAutoSyncWithoutSelfHealSaysLiveEditsStayUntilTheNextRevision(t *testing.T) {
	p := resumePlan(model.EngineArgoCD, "")
	p.Request.AutoSync = &actions.AutoSyncPolicy{Prune: true}
	f := Of(context.Background(), &diffs{pairs: []diff.Pair{{Live: configMap("gone", nil)}}}, p)
	lines := f.Lines(prod)
	if !strings.Contains(lines[0], "without self-heal") || !strings.Contains(lines[0], "deleted") || lines[1] != "ConfigMap/shop/gone: deleted" {
		t.Errorf("lines %q", lines)
	}
}

func TestNothingToChangeAndAFailedDiffAreSaid(t *testing.T) {
	same := []diff.Pair{{Live: configMap("a", nil), Desired: configMap("a", nil)}}
	f := Of(context.Background(), &diffs{pairs: same}, resumePlan(model.EngineKustomization, "false"))
	if f.Summary() != "nothing will change" || f.Lines(prod)[0] != "nothing will change (local render of repo@v1)" {
		t.Errorf("an unchanged diff: %q", f.Lines(prod))
	}
	f = Of(context.Background(), &diffs{err: errors.New("repository unreachable")}, resumePlan(model.EngineTerraform, "false"))
	if f.Summary() != "cannot tell what the controller will change: repository unreachable" {
		t.Errorf("a failed diff: %q", f.Summary())
	}
}

func TestAStacksForecastNamesThePreviewOfItsContext(t *testing.T) {
	d := &diffs{}
	f := Of(context.Background(), d, resumePlan(model.EnginePulumi, "false"))
	if got := f.Lines(prod)[0]; d.calls != 0 || !strings.HasSuffix(got, ": driftdeck --context prod preview pulumi/argocd/shop") {
		t.Errorf("%q", got)
	}
}

func TestLongForecastsAreCutWithTheDiffCommand(t *testing.T) {
	var pairs []diff.Pair
	for i := range shownObjects + 5 {
		data := map[string]any{}
		for j := range shownFields + 2 {
			data[fmt.Sprint("k", j)] = "new"
		}
		pairs = append(pairs, diff.Pair{Live: configMap(fmt.Sprintf("cm%02d", i), map[string]any{}), Desired: configMap(fmt.Sprintf("cm%02d", i), data)})
	}
	lines := Of(context.Background(), &diffs{pairs: pairs}, resumePlan(model.EngineArgoCD, `{"selfHeal":true}`)).Lines(prod)
	if want := "… 5 more objects: driftdeck --context prod diff argocd/argocd/shop"; lines[len(lines)-1] != want {
		t.Errorf("last line %q, want %q", lines[len(lines)-1], want)
	}
	if want := "  … 2 more fields: driftdeck --context prod diff argocd/argocd/shop"; lines[shownFields+2] != want {
		t.Errorf("line %d %q, want %q", shownFields+2, lines[shownFields+2], want)
	}
	if want := 1 + shownObjects*(1+shownFields+1) + 1; len(lines) != want {
		t.Errorf("%d lines, want %d", len(lines), want)
	}
}

// A self-heal that prunes a Stack which destroys on finalize says that
// pulumi destroy runs.
func TestAResumeThatPrunesADestroyingStackSaysSo(t *testing.T) {
	p := resumePlan(model.EngineArgoCD, "")
	p.Request.AutoSync = &actions.AutoSyncPolicy{Prune: true}
	stack := map[string]any{"apiVersion": "pulumi.com/v1", "kind": "Stack", "metadata": map[string]any{"name": "network", "namespace": "shop"},
		"spec": map[string]any{"stack": "acme/network/prod", "destroyOnFinalize": true}}
	lines := Of(context.Background(), &diffs{pairs: []diff.Pair{{Live: stack}}}, p).Lines(prod)
	if len(lines) < 2 || !strings.Contains(lines[1], "deleted: pruning Stack shop/network runs pulumi destroy") {
		t.Errorf("lines %q", lines)
	}
}
