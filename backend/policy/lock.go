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

// planBreak plans breaking the Stack's lock when the rule may: a nil plan
// without an error is a lock left alone for now, and why.
func (e *Engine) planBreak(ctx context.Context, r Rule, u *model.Unit, ops *stackops.Ops, now time.Time) (*stackops.Unstick, string, error) {
	plan, err := ops.PlanUnstick(ctx, u.Key, false, false)
	if err != nil {
		return nil, "", err
	}
	why, ok := lockVerdict(r, u, plan.Info.Locks, pulumistate.IsCloud(plan.Loc.Backend), now)
	if !ok {
		plan.Close()
		return nil, why, nil
	}
	return plan, why, nil
}

// lockVerdict says whether the rule may break these locks of the unit's
// stack, and why: each must be older than After, and its holder known
// gone: a process of this host that no longer runs, or, held from another
// host (every in-cluster run), a Stack the operator runs nothing for. A
// Pulumi Cloud update is cancelled only when the rule allows it.
func lockVerdict(r Rule, u *model.Unit, locks []pulumistate.Lock, cloud bool, now time.Time) (string, bool) {
	var whys []string
	for _, l := range locks {
		age := l.Age(now)
		if age <= r.After {
			return fmt.Sprintf("lock %s is %s old, not older than %s: left alone", l.ID, model.HumanDuration(age), model.HumanDuration(r.After)), false
		}
		held := fmt.Sprintf("lock %s held for %s, longer than %s", l.ID, model.HumanDuration(age), model.HumanDuration(r.After))
		switch {
		case l.Holder == pulumistate.HolderAlive:
			return held + fmt.Sprintf(", by pid %d on this host, which still runs: left alone", l.PID), false
		case l.Holder == pulumistate.HolderDead:
			whys = append(whys, held+fmt.Sprintf(", by pid %d on this host, which is gone", l.PID))
		case cloud && !r.AllowCloudCancel:
			return held + " on Pulumi Cloud, which cannot say whether that update still runs: not cancelled (the policy has no allowCloudCancel); a person decides (driftdeck unlock)", false
		case progressing(u) != "":
			return held + " by " + holderOf(l) + ", while " + progressing(u) + ": left alone", false
		default:
			whys = append(whys, held+" by "+holderOf(l)+", and the operator runs nothing for the Stack")
		}
	}
	return strings.Join(whys, "; "), len(whys) > 0
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
