// Package doctor answers, once, "what needs a human and what fixes it": every
// unit that is stuck, failed, awaiting approval, left paused past its expiry
// or unreadable, with
// the cause, the rule that says so, and the one driftdeck command that fixes
// it, for runbooks and CI.
package doctor

import (
	"context"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// Finding is one unit that needs a human.
type Finding struct {
	Key   model.Key
	State string // stuck, failed, awaiting approval, expired pause, unreadable
	Cause string // the unit's reason
	Rule  string // the rule that classified it, when there is one
	// Fix is the action that fixes it, Then the one to run after it (a
	// Stack that stalled on a lock needs the lock broken, then a new run);
	// "" when no driftdeck command can.
	Fix, Then actions.Kind
	// FixFlags are the fix's own flags (a force-unlock's --lock id).
	FixFlags []string
	// InSource: the cause is in the unit's source (it does not build or
	// validate): no command fixes it, the hint says where to.
	InSource bool
	// StatusPatch, for a fix no driftdeck command makes, is the JSON patch
	// of the object's status that does (printed as a kubectl command).
	StatusPatch string
	Hint        string
	// Forbidden says why the current identity may not run the fix.
	Forbidden string
}

// Reason is the --reason the printed fix carries: what doctor found, made
// visible (the cause is text from the cluster), so the Event and the audit
// log say why the fix was run.
func (f Finding) Reason() string {
	return "doctor: " + safetext.Visible(orWords(f.Cause, f.State))
}

// Command is the one command line that fixes the finding, "" when none
// does: named for where the unit was found and quoted for sh (cmdline).
func (f Finding) Command(o cmdline.Origin) string {
	switch {
	case f.Fix != "" && f.Then != "":
		return o.Driftdeck(f.Key.Context, f.Args()...) + " && " + o.Driftdeck(f.Key.Context, f.args(f.Then)...)
	case f.Fix != "":
		return o.Driftdeck(f.Key.Context, f.Args()...)
	case f.StatusPatch != "":
		gvr, _ := engines.Resource(f.Key.Engine)
		return o.Kubectl(f.Key.Context, "patch", gvr.Resource+"."+gvr.Group, f.Key.Name, "-n", f.Key.Namespace, "--subresource=status", "--type=json", "-p", f.StatusPatch)
	}
	return ""
}

// Args are the fix's arguments after "driftdeck" and where, unquoted, its
// own flags included.
func (f Finding) Args() []string { return append(f.args(f.Fix), f.FixFlags...) }

func (f Finding) args(k actions.Kind) []string {
	return []string{string(k), f.Key.Ref(), "--reason", f.Reason()}
}

// Examine lists the units that need a human, in the order given; o is
// where they were found, which every command in a hint names.
func Examine(units []*model.Unit, now time.Time, o cmdline.Origin) []Finding {
	var out []Finding
	for _, u := range units {
		if f, ok := examine(u, now, o); ok {
			out = append(out, f)
		}
	}
	return out
}

func examine(u *model.Unit, now time.Time, o cmdline.Origin) (Finding, bool) {
	if u.Root != nil {
		return examineRoot(u, o)
	}
	f := Finding{Key: u.Key, Cause: u.Reason(), Rule: u.StuckRule}
	switch {
	case u.Run == model.Stuck:
		f.State = "stuck"
		f.Fix, f.Hint = stuckFix(u)
		if u.Flux != nil || u.Tofu != nil {
			f.Fix, f.FixFlags, f.Hint, f.InSource = fluxStuckFix(u, o)
		}
		if f.Fix == actions.Unlock && stalled(u) {
			f.Then = actions.Retry // the operator stopped retrying on its own
		}
		if u.Stack != nil && f.Fix == actions.Retry && u.Stack.CurrentUpdate != "" && strings.Contains(u.StuckRule, "currentUpdate") {
			// A wedged Stack: a new request does not help while
			// currentUpdate names a missing Update.
			f.Fix, f.StatusPatch = "", `[{"op":"remove","path":"/status/currentUpdate"}]`
			if o.Demo {
				f.Hint = "no driftdeck command removes a currentUpdate that names a missing Update; on a cluster doctor prints the kubectl patch of the Stack's status that does, but the demo's control plane runs inside driftdeck, out of kubectl's reach"
			}
		}
	case u.Run == model.Failed && !terminatedByAPerson(u):
		f.State = "failed"
		f.Fix, f.Hint = failedFix(u)
		if invalidManifest(u) {
			// Syncing again applies the same manifest and fails the same way.
			f.Fix, f.InSource = "", true
			f.Hint = "the cause is in the source: " + where(u) + " renders a manifest the API server rejects (see the cause): fix it there; the new revision syncs (" + suggest(o, u, "sync", u.Key.Ref()) + " once it is committed)"
		}
	case u.Run == model.AwaitingApproval:
		f.State = "awaiting approval"
		f.Fix, f.Hint = approvalFix(u, o)
	case u.Pause.Expired(now):
		f.State = "expired pause"
		f.Cause = "paused by " + u.Pause.By + " until " + u.Pause.Until.Format(time.RFC3339) + ": " + u.Pause.Reason
		f.Rule = "the pause's expiry has passed and it is still in place (no agent resumed it)"
		f.Fix = actions.Resume
	case len(u.ReadErrors) > 0:
		f.State = "unreadable"
		f.Hint = "fix the object's fields by hand: " + strings.Join(u.ReadErrors, "; ")
	default:
		return Finding{}, false
	}
	if f.Fix != "" {
		if s, ok := actions.SpecOf(f.Fix); !ok || !s.Knows(u.Key.Engine) {
			f.Hint = "driftdeck has no " + string(f.Fix) + " for " + string(u.Key.Engine) + " units yet: " + orWords(f.Hint, "see the engine's own tools")
			f.Fix = ""
		}
	}
	return f, true
}

// terminatedByAPerson: an Argo CD operation somebody terminated ends as
// Failed; that was a decision, not a breakage.
func terminatedByAPerson(u *model.Unit) bool {
	return u.Argo != nil && strings.Contains(u.Argo.PhaseMessage, "terminated")
}

func stuckFix(u *model.Unit) (actions.Kind, string) {
	switch {
	case u.Argo != nil && u.Argo.Phase == "Running" && !u.Argo.OperationSet:
		return actions.Sync, "" // a zombie: only a new sync clears it
	case u.Argo != nil && (u.Argo.Phase == "Running" || u.Argo.Phase == "Terminating") && u.Argo.OperationSet:
		return actions.Terminate, ""
	case u.Argo != nil:
		return "", "the operation was requested and never started: look at the application controller"
	case u.Stack != nil && pulumiop.LockConflict(u.Stack.LastMessage):
		return actions.Unlock, "" // the operator retries once the lock is gone
	case u.Stack != nil && u.Stack.CurrentUpdate != "" && u.Observed == model.Running:
		// A new request waits behind the running update: a hung one is
		// aborted, which terminate refuses while its workspace pod writes.
		return actions.Terminate, "terminate aborts the update only if its workspace pod has been silent for 10 minutes; while it writes, the update is slow, not hung (see `logs`)"
	case u.Stack != nil:
		return actions.Retry, ""
	}
	return "", "see the controller's conditions and logs"
}

func stalled(u *model.Unit) bool {
	for _, c := range u.Stack.Conditions {
		if c.Type == "Stalled" && c.Status == "True" {
			return true
		}
	}
	return false
}

func failedFix(u *model.Unit) (actions.Kind, string) {
	switch {
	case u.Argo != nil:
		return actions.Sync, ""
	case u.Stack != nil && pulumiop.LockConflict(u.Stack.LastMessage):
		return actions.Unlock, ""
	case u.Stack != nil:
		return actions.Retry, ""
	}
	return "", "see the controller's conditions and logs"
}

// CheckAccess notes on each finding whether the identity may write the fix.
func CheckAccess(ctx context.Context, fs []Finding, cluster func(string) (*kube.Cluster, bool)) {
	for i := range fs {
		f := &fs[i]
		if f.Fix == "" {
			continue
		}
		c, ok := cluster(f.Key.Context)
		gvr, known := engines.Resource(f.Key.Engine)
		if !ok || !known {
			continue
		}
		v, err := c.Access.Can(ctx, "patch", gvr, f.Key.Namespace, "")
		if err == nil && !v.Allowed {
			f.Forbidden = "you may not patch " + gvr.Resource + " in " + f.Key.Namespace + orWords(": "+v.Reason, "") + "; ask someone who may to run it"
		}
	}
}

// suggest is a command for a hint, in the backquotes that set it apart.
func suggest(o cmdline.Origin, u *model.Unit, args ...string) string {
	return "`" + o.Driftdeck(u.Key.Context, args...) + "`"
}

func orWords(s, def string) string {
	if strings.TrimSpace(strings.TrimPrefix(s, ":")) == "" {
		return def
	}
	return s
}
