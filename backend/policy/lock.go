package policy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// verdict is whether a rule may break a stack's locks, and why. Topic is
// the why without the ages in it: a lock left alone is said once, not
// again each minute it ages.
type verdict struct {
	ok         bool
	why, topic string
}

// planBreak plans breaking the Stack's lock when the rule may: a nil plan
// without an error is a lock left alone for now, and why.
func (e *Engine) planBreak(ctx context.Context, r Rule, u *model.Unit, ops *stackops.Ops, now time.Time) (*stackops.Unstick, verdict, error) {
	plan, err := ops.PlanUnstick(ctx, u.Key, false, false)
	if err != nil {
		return nil, verdict{}, err
	}
	v := lockVerdict(r, u, plan.Info.Locks, pulumistate.IsCloud(plan.Loc.Backend), now)
	if !v.ok {
		plan.Close()
		return nil, v, nil
	}
	return plan, v, nil
}

// lockVerdict says whether the rule may break these locks of the unit's
// stack, and why: each must be older than After, and its holder known
// gone: a process of this host that no longer runs, or, held from another
// host (every in-cluster run), a Stack the operator runs nothing for. A
// Pulumi Cloud update is cancelled only when the rule allows it.
func lockVerdict(r Rule, u *model.Unit, locks []pulumistate.Lock, cloud bool, now time.Time) verdict {
	var whys []string
	for _, l := range locks {
		age := l.Age(now)
		if age <= r.After {
			return verdict{why: fmt.Sprintf("lock %s is %s old, not older than %s: left alone", l.ID, model.HumanDuration(age), model.HumanDuration(r.After)), topic: "young " + l.ID}
		}
		held := fmt.Sprintf("lock %s held for %s, longer than %s", l.ID, model.HumanDuration(age), model.HumanDuration(r.After))
		alone := func(why string) verdict {
			return verdict{why: held + why + ": left alone", topic: l.ID + why}
		}
		switch {
		case l.Holder == pulumistate.HolderAlive:
			return alone(fmt.Sprintf(", by pid %d on this host, which still runs", l.PID))
		case l.Holder == pulumistate.HolderDead:
			whys = append(whys, held+fmt.Sprintf(", by pid %d on this host, which is gone", l.PID))
		case cloud && !r.AllowCloudCancel:
			return alone(" on Pulumi Cloud, which cannot say whether that update still runs: the policy has no allowCloudCancel; a person decides (driftdeck unlock)")
		case progressing(u) != "":
			return alone(" by " + holderOf(l) + ", while " + progressing(u))
		default:
			whys = append(whys, held+" by "+holderOf(l)+", and the operator runs nothing for the Stack")
		}
	}
	return verdict{ok: len(whys) > 0, why: strings.Join(whys, "; ")}
}

// progressing says what of the Stack's run still moves, "" when nothing:
// its workspace may then hold the lock itself.
func progressing(u *model.Unit) string {
	switch {
	case u.Stack.CurrentUpdate != "":
		return "update " + u.Stack.CurrentUpdate + " is in progress"
	case u.Queued:
		return "a requested run is not handled yet"
	case u.Observed == model.Running:
		return "the Stack is reconciling (" + u.RunReason + ")"
	}
	return ""
}

func holderOf(l pulumistate.Lock) string {
	switch {
	case l.Host != "":
		return fmt.Sprintf("%s@%s (pid %d)", l.User, l.Host, l.PID)
	case l.User != "":
		return l.User + " (" + l.Kind + ")"
	}
	return "an unknown holder"
}
