package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
)

// rootService is the workbench's way to root modules: plans, the apply of
// exactly a saved plan, and the break of exactly a lock shown, each read
// into the live model again once done.
type rootService struct {
	fleet    *fleet.Fleet
	audit    *audit.Log
	readOnly bool
	dryRun   bool
}

func (s *rootService) find(k model.Key) (rootmod.Root, *rootmod.Tofu, error) {
	r, tofu, ok := s.fleet.Root(k)
	if !ok {
		return rootmod.Root{}, nil, fmt.Errorf("%s is not a root module driftdeck reads", k.Ref())
	}
	return r, tofu, nil
}

func (s *rootService) ops(tofu *rootmod.Tofu) *rootmod.Ops {
	return &rootmod.Ops{Tofu: tofu, Audit: s.audit, ReadOnly: s.readOnly, DryRun: s.dryRun}
}

// PlanRoot runs a plan of a root module and saves it: the diff screen
// then shows it (Diff reads the newest saved plan).
func (s *rootService) PlanRoot(ctx context.Context, k model.Key) (*rootmod.Saved, error) {
	r, tofu, err := s.find(k)
	if err != nil {
		return nil, err
	}
	defer s.fleet.RereadRoot(k)
	return tofu.Plan(ctx, r, rootmod.LocalIdentity(), 0, diff.Options{})
}

// ApplyRoot applies exactly the saved plan id; done says what was done
// when that is not simply "applied" (a dry run).
func (s *rootService) ApplyRoot(ctx context.Context, k model.Key, id, reason string) (string, error) {
	r, tofu, err := s.find(k)
	if err != nil {
		return "", err
	}
	defer s.fleet.RereadRoot(k)
	w, _, err := s.ops(tofu).Apply(ctx, r, id, reason)
	if err == nil && w.DryRun {
		return "dry run, nothing applied; would apply plan " + id, nil
	}
	return "", err
}

// UnlockRoot breaks the lock id of a root module's state.
func (s *rootService) UnlockRoot(ctx context.Context, k model.Key, id, reason string) (string, error) {
	r, tofu, err := s.find(k)
	if err != nil {
		return "", err
	}
	defer s.fleet.RereadRoot(k)
	w, err := s.ops(tofu).ForceUnlock(ctx, r, id, reason)
	if err == nil && w.DryRun {
		return "dry run, nothing broken; would run tofu force-unlock " + id, nil
	}
	return "", err
}

// rootDiff is the newest saved plan of a root module, as the diff screen
// shows a plan.
func (s *rootService) rootDiff(k model.Key) (*rootmod.Saved, error) {
	r, tofu, err := s.find(k)
	if err != nil {
		return nil, err
	}
	rec, err := tofu.LatestPlan(r)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, errors.New("no plan saved yet: P plans " + k.Ref())
	}
	return tofu.ShowPlan(r, rec.ID, diff.Options{})
}

// Describe: a root module has no object, Events or history in a cluster;
// the detail screen shows the unit's facts.
func (s *service) Describe(ctx context.Context, k model.Key) (*describe.Detail, error) {
	if k.Engine == model.EngineRoot {
		return &describe.Detail{Key: k, Fetched: time.Now()}, nil
	}
	return s.Describer.Describe(ctx, k)
}

// Available: a root module is planned, applied from a saved plan, and
// unlocked.
func (s *service) Available(ctx context.Context, u *model.Unit) []model.Availability {
	if u.Key.Engine != model.EngineRoot || u.Root == nil {
		return s.Executor.Available(ctx, u)
	}
	return rootAvailable(u.Root, s.readOnly)
}

func rootAvailable(f *model.RootFacts, readOnly bool) []model.Availability {
	approve, unlock := "", ""
	switch p := f.Plan; {
	case p == nil:
		approve = "no plan saved: plan first"
	case p.Applied:
		approve = "the last plan was applied: plan again"
	case !p.Changes:
		approve = "the last plan changes nothing"
	case p.Serial != f.Serial || p.Lineage != f.Lineage:
		approve = "the state changed since the last plan: plan again"
	}
	switch {
	case f.Lock == nil:
		unlock = "the state is not locked"
	case f.Backend == "local":
		unlock = "held by a process that still runs on this machine"
	}
	if readOnly {
		approve, unlock = "read-only mode", "read-only mode"
	}
	return []model.Availability{
		{Kind: actions.Replan, Enabled: true},
		{Kind: actions.Approve, Enabled: approve == "", WhyNot: approve},
		{Kind: actions.ForceUnlock, Enabled: unlock == "", WhyNot: unlock},
	}
}

// rootPlanResult shows a saved plan in the diff screen: its id as the
// revision an apply binds to.
func rootPlanResult(s *rootmod.Saved) *argodiff.Result {
	res := planResult(s.Plan)
	res.Source = fmt.Sprintf("tofu plan against state serial %d, made %s by %s", s.Serial, s.At.Local().Format(time.DateTime), s.By)
	if s.Applied {
		res.Warnings = append(res.Warnings, "this plan was applied already: P plans again")
	}
	return res
}
