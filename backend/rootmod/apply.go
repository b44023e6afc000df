package rootmod

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrStalePlan: the state changed since the plan was made (another apply
// ran), so tofu refuses it; plan again.
var ErrStalePlan = errors.New("the saved plan is stale: the state changed since it was made")

// ErrNotLatest: a newer plan was saved since the one an apply names.
var ErrNotLatest = errors.New("a newer plan was saved since")

// Apply applies exactly the saved plan id: the plan file of that digest,
// which must be r's newest. tofu itself refuses a plan made against
// another state than the one it finds.
func (t *Tofu) Apply(ctx context.Context, r Root, id string, lockWait time.Duration) ([]byte, error) {
	defer t.lock(r)()
	rec, err := t.LatestPlan(r)
	if err != nil {
		return nil, err
	}
	switch {
	case rec == nil:
		return nil, fmt.Errorf("plan %s of %s: %w", id, r.Key().Ref(), ErrNoSuchPlan)
	case rec.ID != id:
		return nil, fmt.Errorf("plan %s of %s: %w (%s)", id, r.Key().Ref(), ErrNotLatest, rec.ID)
	case rec.Applied:
		return nil, fmt.Errorf("plan %s of %s was applied already", id, r.Key().Ref())
	}
	file := filepath.Join(t.plansDir(r), id+".tfplan")
	if got, err := fileDigest(file); err != nil || got != id {
		return nil, fmt.Errorf("plan %s of %s: the saved file no longer has this digest", id, r.Key().Ref())
	}
	out, _, err := t.runInit(ctx, r, "apply", "-input=false", "-no-color", "-lock=true", "-lock-timeout="+lockWait.String(), file)
	var re *RunError
	if errors.As(err, &re) && strings.Contains(re.Stderr, "Saved plan is stale") {
		return out, fmt.Errorf("plan %s of %s: %w", id, r.Key().Ref(), ErrStalePlan)
	}
	if err != nil {
		return out, err
	}
	rec.Applied = true
	if err := writeRecord(t.plansDir(r), *rec); err != nil {
		return out, err
	}
	os.Remove(file) // applied: tofu would refuse it from now on anyway
	return out, nil
}

// ForceUnlock removes the lock id from r's state (`tofu force-unlock`):
// only the id a reader was shown, so a lock taken since is not broken.
func (t *Tofu) ForceUnlock(ctx context.Context, r Root, id string) error {
	defer t.lock(r)()
	_, _, err := t.runInit(ctx, r, "force-unlock", "-force", id)
	return err
}
