package rootreq

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
)

// Sender is the agent's changereq.RootSender: the plan file it applies is
// the one it makes itself, under its own credentials; the requester's plan
// only says what that file must do.
type Sender struct {
	// Find is the root module of a key, and the tofu that runs it.
	Find  func(model.Key) (rootmod.Root, *rootmod.Tofu, bool)
	Audit *audit.Log
	// Reread reads the module into the model again once planned.
	Reread func(model.Key)
	// LockWait is how long a plan and an apply wait for the state lock.
	LockWait time.Duration
}

// Reads tells whether k is a root module the agent reads.
func (s *Sender) Reads(k model.Key) bool {
	_, _, ok := s.Find(k)
	return ok
}

// Send plans the request's module again and applies that plan when it
// is the one stored: the same resources, the same changes, the same
// state lineage. Otherwise nothing is applied (*changereq.RootChanged).
func (s *Sender) Send(ctx context.Context, cr *changereq.ChangeRequest, approval string) (string, error) {
	k := cr.Key("")
	r, tofu, ok := s.Find(k)
	if !ok {
		return "", fmt.Errorf("%s is not a root module this agent reads", k.Ref())
	}
	stored := cr.Spec.Plan
	if digestOf(stored.Patch) != stored.Digest {
		return "", fmt.Errorf("the stored plan does not match its digest %s: nothing applied", stored.Digest)
	}
	if s.Reread != nil {
		defer s.Reread(k)
	}
	// A scheduled plan of the same module may be saved between this plan
	// and its apply: the apply refuses a plan that is not the newest, and
	// the module is planned again.
	for range 3 {
		summary, err := s.planAndApply(ctx, cr, r, tofu, approval)
		if !errors.Is(err, rootmod.ErrNotLatest) {
			return summary, err
		}
	}
	return "", fmt.Errorf("%s was planned by another run each time the agent planned it: nothing applied", k.Ref())
}

// planAndApply plans the module and applies that plan when it is the
// request's.
func (s *Sender) planAndApply(ctx context.Context, cr *changereq.ChangeRequest, r rootmod.Root, tofu *rootmod.Tofu, approval string) (string, error) {
	saved, err := tofu.Plan(ctx, r, "driftdeck agent ("+rootmod.LocalIdentity()+") for change request "+cr.Ref(), s.LockWait, diff.Options{})
	if err != nil {
		return "", fmt.Errorf("planning %s again: %w", r.Key().Ref(), err)
	}
	text, lines, err := Shown(saved.Plan)
	if err != nil {
		return "", err
	}
	if what := differences(cr, saved, text, lines); len(what) > 0 {
		return "", &changereq.RootChanged{What: what}
	}
	ops := &rootmod.Ops{Tofu: tofu, Audit: s.Audit, LockWait: s.LockWait}
	_, _, err = ops.ApplyApproved(ctx, r, saved.ID, cr.Spec.Reason, approval)
	switch {
	case errors.Is(err, rootmod.ErrStalePlan):
		return "", &changereq.RootChanged{What: []string{"another apply changed the state between the agent's plan and its apply"}}
	case err != nil:
		return "", err
	}
	return fmt.Sprintf("%s (plan %s, against state serial %d)", saved.Summary, saved.ID, saved.Serial), nil
}

// differences says how the plan made now differs from the request's: the
// state replaced, or each resource whose change is not the one stored.
func differences(cr *changereq.ChangeRequest, saved *rootmod.Saved, text string, lines []string) []string {
	if uid := cr.Spec.Unit.UID; uid != "" && saved.Lineage != uid {
		return []string{fmt.Sprintf("the state was replaced (lineage %s, the request's %s)", saved.Lineage, uid)}
	}
	if text == cr.Spec.Plan.Patch {
		return nil
	}
	was, now := byAddress(cr.Spec.Plan.Changes), byAddress(lines)
	var out []string
	for _, l := range cr.Spec.Plan.Changes {
		addr := address(l)
		switch n, ok := now[addr]; {
		case !ok:
			out = append(out, addr+": no longer planned ("+l+")")
		case n != l:
			out = append(out, addr+": now "+strings.TrimPrefix(n, addr+": ")+", was "+strings.TrimPrefix(l, addr+": "))
		}
	}
	for _, l := range lines {
		if _, ok := was[address(l)]; !ok {
			out = append(out, address(l)+": newly planned ("+l+")")
		}
	}
	if len(out) == 0 {
		out = append(out, "the plan reads differently in order") // same resources, same changes, another order
	}
	return out
}

// address is the resource a line of Shown names.
func address(line string) string {
	i := strings.LastIndex(line, ": ")
	if i < 0 {
		return line
	}
	return line[:i]
}

func byAddress(lines []string) map[string]string {
	m := make(map[string]string, len(lines))
	for _, l := range lines {
		m[address(l)] = l
	}
	return m
}
