package actions

import (
	"strings"

	"github.com/driftdeck/driftdeck/backend/pause"
)

// Unwrap makes a changed plan a refusal too (nothing was written; the
// command line exits 6), while errors.As still finds the new plan.
func (p *PlanChanged) Unwrap() error { return &Refusal{Reason: p.Error()} }

// versionTest is the precondition that binds a plan to the version of the
// object it was made from: the server checks it in the same atomic write,
// so nothing can slip in between.
func versionTest(version string) Op {
	return Op{Op: "test", Path: "/metadata/resourceVersion", Value: version}
}

// writes is the plan's patch without the version it is bound to: what it
// writes and checks of the object.
func (p *Plan) writes() []Op {
	if p.bound() {
		return p.Patch[1:]
	}
	return p.Patch
}

// bound tells whether the plan's patch tests the version it was made from
// first, as Plan makes it.
func (p *Plan) bound() bool {
	if len(p.Patch) == 0 {
		return false
	}
	first := p.Patch[0]
	version, ok := first.Value.(string)
	return first.Op == "test" && first.Path == "/metadata/resourceVersion" && ok && version == p.ResourceVersion
}

// rebound is the plan bound to a newer version of its object, whose change
// it neither writes nor reads: the same bytes but for the version tested.
func (p *Plan) rebound(version string) *Plan {
	q := *p
	q.ResourceVersion = version
	q.Patch = append([]Op{versionTest(version)}, p.writes()...)
	return &q
}

// PlanDifferences says, in words, what the new plan writes or warns
// differently from the old: what a user who confirmed the old must read
// before confirming again. Empty when they write and warn the same. The
// time a pause is recorded at is the time of planning: a plan made a
// second later is not a different write.
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
		case was != c && !strings.HasSuffix(f, pause.AnnotationAt):
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
	if len(out) == 0 {
		out = differentPreconditions(old, now)
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

// differentPreconditions names the objects whose write checks other values
// in the new plan, the versions the plans are bound to aside.
func differentPreconditions(old, now *Plan) []string {
	var out []string
	if patchText(old.writes()) != patchText(now.writes()) {
		out = append(out, "the preconditions of the write changed (the values it checks before writing)")
	}
	nowBy := make(map[string]OtherWrite, len(now.Also))
	for _, o := range now.Also {
		nowBy[o.Object] = o
	}
	for _, o := range old.Also {
		if n, ok := nowBy[o.Object]; ok && patchText(n.Patch) != patchText(o.Patch) {
			out = append(out, o.Object+" changed since the plan was made: its write now checks what it holds now")
		}
	}
	return out
}
