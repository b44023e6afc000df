package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/undo"
)

// forecastTimeout bounds the diffs a resume's confirmation waits for (a
// local render fetches the source): past it, the confirmation says it
// cannot tell, and the resume can still go ahead.
const forecastTimeout = 60 * time.Second

// forecaster reads what resumes will undo, with the diff source the diff
// command uses; made once, on the first resume that needs it.
type forecaster struct {
	make func() (undo.Differ, error)
	once sync.Once
	d    undo.Differ
	err  error
}

func (f *forecaster) of(ctx context.Context, p *actions.Plan) undo.Forecast {
	f.once.Do(func() { f.d, f.err = f.make() })
	if f.err != nil {
		return undo.Forecast{Key: p.Request.Key, Err: f.err}
	}
	ctx, cancel := context.WithTimeout(ctx, forecastTimeout)
	defer cancel()
	return undo.Of(ctx, f.d, p)
}

// printForecast says, under a resume's plan, what the controller will
// change once its automation is back.
func printForecast(ctx context.Context, g *globals, f *forecaster, p *actions.Plan) {
	if p.Request.Kind != actions.Resume {
		return
	}
	fmt.Fprintln(g.errOut, "Once resumed:")
	for _, l := range f.of(ctx, p).Lines(g.origin()) {
		fmt.Fprintf(g.errOut, "  %s\n", safetext.Visible(l))
	}
}

// printForecastSummaries says, for a thaw, per unit what its controller
// will change, read four at a time, each with the command that shows it.
func printForecastSummaries(ctx context.Context, g *globals, w io.Writer, f *forecaster, plans []*actions.Plan) {
	out := make([]undo.Forecast, len(plans))
	var wg sync.WaitGroup
	limit := make(chan struct{}, 4)
	for i, p := range plans {
		wg.Go(func() {
			limit <- struct{}{}
			defer func() { <-limit }()
			out[i] = f.of(ctx, p)
		})
	}
	wg.Wait()
	fmt.Fprintln(w, "Once resumed, the controllers will change:")
	for _, fc := range out {
		fmt.Fprintf(w, "  %s: %s\n", safetext.Visible(fc.Key.String()), safetext.Visible(fc.Summary()))
		if len(fc.Objects) > 0 {
			fmt.Fprintf(w, "    see: %s\n", g.origin().Driftdeck(fc.Key.Context, "diff", fc.Key.Ref()))
		}
	}
}
