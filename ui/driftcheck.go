package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/views/preview"
)

// driftDoneMsg ends a drift check of run.
type driftDoneMsg struct {
	run    int
	report *stackops.DriftReport
	err    error
}

// openDriftCheck streams a Stack's refresh preview into a preview screen:
// each resource as the provider reads it, the drifted ones with what
// changed. The backend marks the unit with the verdict.
func (a *App) openDriftCheck(u *model.Unit) tea.Cmd {
	if u == nil {
		return nil
	}
	if u.Key.Engine != model.EnginePulumi {
		a.toastError(fmt.Sprintf("a drift check (%s) reads a Pulumi Stack's resources; %s shows what would change for %s",
			a.keys.Drift.Help().Key, a.keys.Diff.Help().Key, u.Key.Ref()))
		return nil
	}
	s := &previewScreen{unitKey: u.Key, drift: true, v: preview.New(a.theme, "drift check of "+u.Key.Ref()+": refresh preview, nothing is written")}
	a.push(s)
	k, be := u.Key, a.opts.Backend
	return s.startStream(a, func(ctx context.Context, run int, onEvent func(pulumirun.Event)) tea.Msg {
		rep, err := be.DriftCheck(ctx, k, onEvent)
		return driftDoneMsg{run: run, report: rep, err: err}
	})
}

func (s *previewScreen) onDriftDone(m driftDoneMsg) {
	s.running = false
	if m.err != nil {
		s.fail(m.err)
		return
	}
	res := m.report.Result
	took := res.Elapsed.Round(100 * time.Millisecond)
	if n := len(res.Drifted()); n > 0 {
		s.v.Done(fmt.Sprintf("drift check done in %s: %d of %d resources drifted — pulumi refresh takes them into the state; d previews putting them back",
			took, n, len(res.Steps)), nil)
		return
	}
	s.v.Done(fmt.Sprintf("drift check done in %s: no drift, all %d resources read as the state says", took, len(res.Steps)), nil)
}
