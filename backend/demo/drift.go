package demo

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/driftdeck/driftdeck/backend/sim"
)

// drifter stages the everyday churn: commits pushed to the branches apps and
// Stacks track (auto-sync and the operator pick them up), and live resources
// edited by hand (self-heal reverts them; apps without self-heal stay
// drifted). It leaves the scenario objects alone.
type drifter struct {
	e       *estate
	argo    *sim.Argo
	r       *rand.Rand
	every   time.Duration
	onError func(error)
}

func newDrifter(e *estate, argo *sim.Argo, seed uint64, every time.Duration, onError func(error)) *drifter {
	return &drifter{e: e, argo: argo, r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), every: every, onError: onError}
}

func (d *drifter) run(ctx context.Context) {
	if d.every < 0 {
		return
	}
	for {
		// Irregular, so that the list does not pulse.
		wait := d.every/2 + time.Duration(d.r.Int64N(int64(d.every)+1))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		d.once(ctx)
	}
}

func (d *drifter) once(ctx context.Context) {
	e := d.e
	switch n := d.r.IntN(10); {
	case n < 5 && len(e.pushTargets) > 0:
		t := e.pushTargets[d.r.IntN(len(e.pushTargets))]
		e.git.Push(t.repo, t.ref, t.path)
	case n < 8 && len(e.handEdits) > 0:
		a := e.handEdits[d.r.IntN(len(e.handEdits))]
		if err := d.argo.ManualChange(ctx, a.namespace, a.name); err != nil && d.onError != nil && ctx.Err() == nil {
			d.onError(err)
		}
	case len(e.stackPushes) > 0:
		t := e.stackPushes[d.r.IntN(len(e.stackPushes))]
		e.git.Push(t.repo, t.ref, t.path)
	}
}
