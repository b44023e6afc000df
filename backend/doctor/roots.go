package doctor

import (
	"slices"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
)

// examineRoot says what a root module needs: a lock whose holder is gone
// broken by its id, a state that cannot be read looked at, a saved plan
// that changes something applied (after a look at it).
func examineRoot(u *model.Unit, o cmdline.Origin) (Finding, bool) {
	f := Finding{Key: u.Key, Cause: u.Reason(), Rule: u.StuckRule}
	r := u.Root
	flags := rootmod.Flags(r.Given, r.Dir)
	switch {
	case u.Run == model.Failed:
		f.State = "failed"
		f.Hint = "the state could not be read: check the backend and your credentials for it (" + cmdline.Join("tofu", "-chdir="+r.Dir, "state", "pull") + " reads the same)"
	case u.Run == model.Stuck && r.Lock != nil && r.Backend == "local":
		f.State = "stuck"
		f.Hint = "a tofu process on this machine has held the state lock that long (" + r.Lock.Who + "): look at it, end it if it hangs, and its lock goes with it"
	case u.Run == model.Stuck && r.Lock != nil:
		f.State = "stuck"
		f.Fix, f.FixFlags = actions.ForceUnlock, slices.Concat([]string{"--lock", r.Lock.ID}, flags)
		f.Hint = "only if the run holding it is dead (a killed CI job, a closed laptop): a live apply would lose its lock"
	case u.Run == model.AwaitingApproval && r.Plan != nil:
		f.State = "awaiting approval"
		f.Fix, f.FixFlags = actions.Approve, slices.Concat([]string{"--revision", r.Plan.ID}, flags)
		f.Hint = "review it first: `" + o.Driftdeck("", slices.Concat(flags, []string{"diff", u.Key.Ref()})...) + "`"
	default:
		return Finding{}, false
	}
	return f, true
}
