package doctor

import (
	"strings"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/model"
)

// fluxStuckFix is the fix of a stuck Flux or Terraform unit. A Terraform's
// held lock is forced open (bound to the lock id seen); a HelmRelease out of
// retries is forced (a one-off upgrade that replaces what cannot be patched,
// such as an immutable selector, and clears the failure counts). A source
// that does not build or validate, and a Terraform whose retries ran out on
// a failing apply, have their cause outside what driftdeck writes: no
// command fixes them, the hint says where the cause is.
func fluxStuckFix(u *model.Unit, o cmdline.Origin) (fix actions.Kind, flags []string, hint string, inSource bool) {
	switch {
	case u.Tofu != nil && u.Tofu.LockPending != "":
		return actions.ForceUnlock, []string{"--lock", u.Tofu.LockPending}, "", false
	case u.Tofu != nil && strings.Contains(u.StuckRule, "RetryLimitReached"):
		return "", nil, "the cause is in the failing run (see its last error): fix it in the source, whose change re-arms the retries; " + suggest(o, u, "refresh", u.Key.Ref()) + " picks the fix up", true
	case u.Flux != nil && u.Flux.Helm != nil && u.Flux.Helm.RetriesExhausted:
		return actions.Force, nil, "", false
	}
	f := u.FluxRuntime()
	if f == nil {
		return "", nil, "see the controller's conditions and logs", false
	}
	if src := u.SourceState; src != nil && (src.Missing || src.Ready == "False" || src.Suspended) {
		return "", nil, "the cause is in the source " + src.Ref.String() + ", which cannot be read (see why above): create it or fix its URL, credentials or ref, then " + suggest(o, u, "refresh", u.Key.Ref(), "--with-source") + " fetches it and applies", true
	}
	where := "its source"
	if s := f.Source.String(); s != "" {
		where = s
	}
	rev := f.LastAttempted
	if rev == "" {
		rev = "the attempted revision"
	}
	return "", nil, "the cause is in " + where + " at " + rev + ": fix it there, then " + suggest(o, u, "refresh", u.Key.Ref()) + " picks the fix up", true
}
