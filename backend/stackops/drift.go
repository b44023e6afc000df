package stackops

import (
	"context"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
)

// DriftReport is a finished drift check of a Stack.
type DriftReport struct {
	Loc    *Location
	Result pulumirun.Result
}

// DriftCheck runs `pulumi refresh --preview-only` on the stack's program
// and state, streaming every read: the resources whose provider reports
// them changed or gone since the last update are its drift. It writes
// nothing, not even the state, so it needs no reason and passes no write
// guard; it is refused only for what is not a Stack.
func (o *Ops) DriftCheck(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*DriftReport, error) {
	loc, t, cleanup, err := o.locatedTarget(ctx, k)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	res, err := pulumirun.DriftCheck(ctx, t, onEvent)
	if err != nil {
		return nil, err
	}
	if o.DriftChecked != nil {
		o.DriftChecked(k, res, o.now())
	}
	return &DriftReport{Loc: loc, Result: res}, nil
}
