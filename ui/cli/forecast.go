package cli

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/backend/undo"
)

// forecaster reads what resumes will undo, with the diff source the diff
// command uses; made once, on the first resume that needs it.
type forecaster struct {
	make func() (undo.Differ, error)
	once sync.Once
	d    undo.Differ
	err  error
}

// forecastSource reads what a resume will change: the diff command's
// differ, and the Stack operations for a Stack whose program runs here.
func forecastSource(ctx context.Context, g *globals, clusters func(string) (*kube.Cluster, bool), argo func(string) (*argoapi.Client, bool)) (undo.Differ, error) {
	d, err := newDiffer(ctx, g, clusters, argo)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return nil, usageError(err)
	}
	return struct {
		*unitDiffer
		*stackops.Ops
	}{d, &stackops.Ops{Cluster: clusters, Programs: cfg.Stacks, ReadOnly: true}}, nil
}

// all forecasts the resumes of plans, in their order.
func (f *forecaster) all(ctx context.Context, plans []*actions.Plan) []undo.Forecast {
	f.once.Do(func() { f.d, f.err = f.make() })
	if f.err != nil {
		out := make([]undo.Forecast, len(plans))
		for i, p := range plans {
			out[i] = undo.Forecast{Key: p.Request.Key, Err: f.err}
		}
		return out
	}
	return undo.All(ctx, f.d, plans)
}

// printForecast says, under a resume's plan, what the controller will
// change once its automation is back.
func printForecast(ctx context.Context, g *globals, f *forecaster, p *actions.Plan) {
	if p.Request.Kind != actions.Resume {
		return
	}
	fmt.Fprintln(g.errOut, "Once resumed:")
	for _, l := range f.all(ctx, []*actions.Plan{p})[0].Lines(g.origin()) {
		fmt.Fprintf(g.errOut, "  %s\n", safetext.Visible(l))
	}
}

// printForecastSummaries says, for a thaw, per unit what its controller
// will change, each with the command that shows it.
func printForecastSummaries(ctx context.Context, g *globals, w io.Writer, f *forecaster, plans []*actions.Plan) {
	out := f.all(ctx, plans)
	fmt.Fprintln(w, "Once resumed, the controllers will change:")
	for _, fc := range out {
		fmt.Fprintf(w, "  %s: %s\n", safetext.Visible(fc.Key.String()), safetext.Visible(fc.Summary()))
		if len(fc.Objects) > 0 {
			fmt.Fprintf(w, "    see: %s\n", g.origin().Driftdeck(fc.Key.Context, "diff", fc.Key.Ref()))
		}
	}
}
