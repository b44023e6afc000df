package actions

import (
	"fmt"
	"strings"
	"sync"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Unwrap makes a changed plan a refusal too (nothing was written; the
// command line exits 6), while errors.As still finds the new plan.
func (p *PlanChanged) Unwrap() error { return &Refusal{Reason: p.Error()} }

// planChanged is the answer to a request bound to a version the object is
// no longer at: the new plan, and in words what differs from the plan the
// user confirmed. When the action is not possible any more, the refusal.
func (e *Executor) planChanged(env *planEnv, obj map[string]any, req Request) error {
	now, err := e.plan(env, obj, req)
	if err != nil {
		return err
	}
	e.shown.remember(now)
	pc := &PlanChanged{Plan: now}
	confirmed, ok := e.shown.lookup(req.Key, req.Kind, req.ResourceVersion)
	if !ok {
		pc.Changes = []string{fmt.Sprintf("the object changed since the plan was made (resourceVersion %s → %s): review the new plan", req.ResourceVersion, now.ResourceVersion)}
		return pc
	}
	// Plan the confirmed request again, at the confirmed plan's time, so that
	// only what the object's change did shows (not the reason typed since,
	// nor the clock).
	again := *env
	again.now = confirmed.at
	same, err := e.plan(&again, obj, confirmed.Request)
	if err != nil {
		pc.Changes = []string{"the confirmed plan is not possible any more: " + err.Error()}
		return pc
	}
	pc.Changes = PlanDifferences(confirmed, same)
	return pc
}

// writesTheSame tells whether the plan the user confirmed, made again on the
// object as it is now, writes and checks exactly what was confirmed: then
// only fields the write does not touch changed, and writing keeps the promise.
func (e *Executor) writesTheSame(env *planEnv, obj map[string]any, req Request) bool {
	confirmed, ok := e.shown.lookup(req.Key, req.Kind, req.ResourceVersion)
	if !ok {
		return false
	}
	again := *env
	again.now = confirmed.at
	same, err := e.plan(&again, obj, confirmed.Request)
	return err == nil && len(PlanDifferences(confirmed, same)) == 0 && patchText(confirmed.Patch) == patchText(same.Patch)
}

// PlanDifferences says, in words, what the new plan writes or warns
// differently from the old: what a user who confirmed the old must read
// before confirming again. Empty when they write and warn the same.
func PlanDifferences(old, now *Plan) []string {
	var out []string
	if old.Summary != now.Summary {
		out = append(out, "now: "+now.Summary+" (was: "+old.Summary+")")
	}
	oldChanges, nowChanges := old.allChanges(), now.allChanges()
	oldBy, nowBy := changesByField(oldChanges), changesByField(nowChanges)
	for _, c := range nowChanges {
		f := field(c)
		switch was, ok := oldBy[f]; {
		case !ok:
			out = append(out, "also writes "+c)
		case was != c:
			out = append(out, "writes "+c+" (was "+strings.TrimPrefix(was, f+": ")+")")
		}
	}
	for _, c := range oldChanges {
		if _, ok := nowBy[field(c)]; !ok {
			out = append(out, "no longer writes "+c)
		}
	}
	for _, w := range now.Warnings {
		if !containsString(old.Warnings, w) {
			out = append(out, "new warning: "+w)
		}
	}
	for _, w := range old.Warnings {
		if !containsString(now.Warnings, w) {
			out = append(out, "no longer warns: "+w)
		}
	}
	if len(out) == 0 && patchText(old.Patch) != patchText(now.Patch) {
		out = append(out, "the preconditions of the write changed (the values it checks before writing)")
	}
	return out
}

// allChanges are the unit's changes and those to other objects, each of
// these named by its object.
func (p *Plan) allChanges() []string {
	out := append([]string(nil), p.Changes...)
	for _, o := range p.Also {
		for _, c := range o.Changes {
			out = append(out, o.Object+" "+c)
		}
	}
	return out
}

// field is the "path" of a "path: value" change line.
func field(change string) string {
	if i := strings.Index(change, ": "); i >= 0 {
		return change[:i]
	}
	return change
}

func changesByField(cs []string) map[string]string {
	m := make(map[string]string, len(cs))
	for _, c := range cs {
		m[field(c)] = c
	}
	return m
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func patchText(ops []Op) string {
	b, _ := patch(ops).bytes()
	return string(b)
}

// shownPlans remembers the latest plans handed out, per unit, action and
// version: the few a user may be confirming at one time.
type shownPlans struct {
	mu    sync.Mutex
	plans map[shownKey]*Plan
}

type shownKey struct {
	key     model.Key
	kind    Kind
	version string
}

// maxShown bounds the memory of plans; a plan forgotten only makes a
// PlanChanged less specific.
const maxShown = 256

func (s *shownPlans) remember(p *Plan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plans == nil || len(s.plans) >= maxShown {
		s.plans = map[shownKey]*Plan{}
	}
	s.plans[shownKey{p.Request.Key, p.Request.Kind, p.ResourceVersion}] = p
}

func (s *shownPlans) lookup(k model.Key, kind Kind, version string) (*Plan, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.plans[shownKey{k, kind, version}]
	return p, ok
}
