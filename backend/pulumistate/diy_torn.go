package pulumistate

import (
	"context"
	"fmt"
	"path"

	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
)

// tornSidecars returns the keys of the stack's objects (checkpoint, locks,
// history) whose file:// sidecar is torn (objstore.Sidecars): driftdeck
// reads them, the pulumi CLI fails on them with "EOF".
func (d *DIY) tornSidecars(ctx context.Context, ref StackRef) ([]string, error) {
	sc, ok := d.bucket.(objstore.Sidecars)
	if !ok {
		return nil, nil
	}
	key, err := d.checkpointKey(ctx, ref)
	if err != nil {
		return nil, err
	}
	keys := []string{key}
	for _, dir := range []string{d.lockDir(ref), ".pulumi/history/" + d.dir(ref) + "/"} {
		more, err := d.list(ctx, dir, "/")
		if err != nil {
			return nil, err
		}
		keys = append(keys, more...)
	}
	var torn []string
	for _, k := range keys {
		if _, t := sc.TornSidecar(k); t {
			torn = append(torn, k)
		}
	}
	return torn, nil
}

// RemoveTorn plans removing the torn sidecars of the stack's objects. The
// objects themselves are whole: the write that tore a sidecar was cut
// short before it replaced its object.
func (d *DIY) RemoveTorn(ctx context.Context, ref StackRef) (*Repair, error) {
	torn, err := d.tornSidecars(ctx, ref)
	if err != nil {
		return nil, err
	}
	if len(torn) == 0 {
		return nil, fmt.Errorf("stack %s has no torn sidecar file: %w", ref, ErrNothingToDo)
	}
	sc := d.bucket.(objstore.Sidecars)
	r := &Repair{Summary: fmt.Sprintf("remove %d torn sidecar file(s) of %s", len(torn), ref)}
	for _, k := range torn {
		p, _ := sc.TornSidecar(k)
		r.Changes = append(r.Changes, "delete "+p+": cut short by a writer killed while saving "+path.Base(k)+
			", which is whole; until then the pulumi CLI reads it as \"EOF\"")
	}
	r.apply = func(context.Context) error {
		for _, k := range torn {
			if err := sc.RemoveTornSidecar(k); err != nil {
				return err
			}
		}
		return nil
	}
	return r, nil
}
