package actions

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
)

// A bulk pause of several children of one ApplicationSet writes every
// child's ignoreApplicationDifferences entry in one patch of the
// ApplicationSet before it pauses any child (ADR 0014). Written one child at
// a time, the controller's reconcile started by one child's writes, still
// holding the ApplicationSet as it was before the next child's entry,
// reverted that next child's pause; with all entries in first, every
// reconcile the pauses start sees them all, and one settle time covers them.

// siblingHolds are the entries one bulk pause adds to one ApplicationSet.
type siblingHolds struct {
	key model.Key // applicationset/<namespace>/<name>
	uid string    // the ApplicationSet the children's plans were read from
	// units are the indexes of the bulk's requests, entries their entries.
	units   []int
	entries []map[string]any
	// createdList: the patch created the list, which each child records
	// so that the last one resumed removes it.
	createdList bool
	// remove: the entries are a resume's, each removed after its child.
	remove bool
}

// OwnerWrite is what a bulk pause or resume writes to one ApplicationSet
// besides its units, for the confirm dialog: the ignoreApplicationDifferences
// entries it adds (or removes), one per child.
type OwnerWrite struct {
	Object string // applicationset/<namespace>/<name>
	// Remove: a resume takes each child's entry out after the child.
	Remove bool
	// OnePatch: a pause of several children adds all entries in one patch,
	// before any child is paused.
	OnePatch bool
	Entries  []map[string]any
}

// OwnerWrites reads and plans each unit of a bulk pause or resume (nothing
// is written) and returns the ApplicationSet writes its Bulk would make.
func (e *Executor) OwnerWrites(ctx context.Context, r BulkRequest) []OwnerWrite {
	reqs := bulkRequests(r)
	all := make([]int, len(reqs))
	for i := range all {
		all[i] = i
	}
	var out []OwnerWrite
	for _, g := range e.plannedHolds(ctx, r, reqs, all) {
		out = append(out, OwnerWrite{Object: g.key.Ref(), Remove: g.remove, OnePatch: !g.remove && len(g.units) > 1, Entries: g.entries})
	}
	return out
}

// bulkRequests is the one-unit request of each key of a bulk request.
func bulkRequests(r BulkRequest) []Request {
	reqs := make([]Request, len(r.Keys))
	for i, k := range r.Keys {
		reqs[i] = Request{Kind: r.Kind, Key: k, Reason: r.Reason, Until: r.Until, Prune: r.Prune, SyncChoices: r.SyncChoices, WithSource: r.WithSource}
	}
	return reqs
}

// plannedHolds plans each pause or resume and groups the ApplicationSet
// entries of the ones that write one by ApplicationSet, in the order first
// met. A unit that cannot be planned is left to its own Execute, which
// says why.
func (e *Executor) plannedHolds(ctx context.Context, r BulkRequest, reqs []Request, units []int) []*siblingHolds {
	if r.Kind != Pause && r.Kind != Resume {
		return nil
	}
	byRef := map[string]*siblingHolds{}
	var order []*siblingHolds
	for _, i := range units {
		req := reqs[i]
		if req.Key.Engine != model.EngineArgoCD {
			continue
		}
		env, obj, err := e.prepare(ctx, req)
		if err != nil {
			continue
		}
		p, err := e.plan(env, obj, req, false)
		if err != nil || p.hold == nil {
			continue
		}
		g := byRef[p.hold.key.Ref()]
		if g == nil {
			g = &siblingHolds{key: p.hold.key, uid: p.hold.uid, remove: !p.hold.first}
			byRef[p.hold.key.Ref()] = g
			order = append(order, g)
		}
		g.units = append(g.units, i)
		g.entries = append(g.entries, p.hold.entry)
	}
	return order
}

// groupSiblingHolds are the ApplicationSets of a bulk pause with more than
// one child in it: a single child's pause writes its entry itself, as a
// pause alone does.
func (e *Executor) groupSiblingHolds(ctx context.Context, r BulkRequest, reqs []Request, units []int) []*siblingHolds {
	if r.Kind != Pause {
		return nil
	}
	var groups []*siblingHolds
	for _, g := range e.plannedHolds(ctx, r, reqs, units) {
		if len(g.units) > 1 {
			groups = append(groups, g)
		}
	}
	return groups
}

// writeSiblingHolds adds all of a group's entries in one JSON patch, under a
// test of the ApplicationSet's uid and of the list as read; a failed test
// reads again and retries, a few times.
func (e *Executor) writeSiblingHolds(ctx context.Context, r BulkRequest, g *siblingHolds) error {
	c, ok := e.Cluster(g.key.Context)
	if !ok {
		return fmt.Errorf("unknown context %q", g.key.Context)
	}
	var names []string
	for _, en := range g.entries {
		names = append(names, fmt.Sprint(en["name"]))
	}
	for attempt := 0; ; attempt++ {
		obj, err := c.Dynamic.Resource(argocd.ApplicationSets).Namespace(g.key.Namespace).Get(ctx, g.key.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading %s: %w", g.key.Ref(), err)
		}
		if uid := lookupString(obj.Object, "metadata", "uid"); uid != g.uid {
			return &Refusal{Reason: g.key.Ref() + " was replaced since its children were read: nothing written; look again and retry"}
		}
		list, present := lookup(obj.Object, "spec", ignoreDiffField)
		var ops patch
		ops.test(g.uid, "metadata", "uid")
		if present {
			ops.test(list, "spec", ignoreDiffField)
			for _, en := range g.entries {
				ops.add(en, "spec", ignoreDiffField, "-")
			}
		} else {
			ops.test(nil, "spec", ignoreDiffField)
			ops.add(toAnyMaps(g.entries), "spec", ignoreDiffField)
		}
		held, err := e.writeAppSet(ctx, appSetWrite{key: g.key, action: string(r.Kind), reason: r.Reason, ops: ops, eventReason: "DriftdeckPause",
			eventVerb: "added ignoreApplicationDifferences entries, so that the pauses of " + strings.Join(names, ", ") + " hold, to"})
		switch {
		case err != nil && PreconditionFailed(err) && attempt < maxRebinds:
			continue
		case err != nil:
			return holdError(&ownerHold{key: g.key}, err)
		}
		if !e.DryRun {
			v, _ := lookup(held, "spec", ignoreDiffField)
			for _, en := range g.entries {
				if entryIndex(v, en) < 0 {
					return fmt.Errorf("%s does not keep the ignoreApplicationDifferences entries driftdeck wrote (its CRD pruned them?): no Application was paused", g.key.Ref())
				}
			}
		}
		g.createdList = !present
		return nil
	}
}

// preHeld is the record a child of a written group keeps: its entry is in.
func (g *siblingHolds) preHeld(i int) *holdRecord {
	for n, u := range g.units {
		if u == i {
			return &holdRecord{ApplicationSet: g.key.Name, UID: g.uid, Entry: g.entries[n], CreatedList: g.createdList}
		}
	}
	return nil
}

// releaseSiblingHolds takes back, in one patch, the entries of the children
// whose pause did not hold, so that no entry is left for a child that is not
// paused (the list too when the bulk created it and nothing else is left).
func (e *Executor) releaseSiblingHolds(ctx context.Context, r BulkRequest, g *siblingHolds, units []int) error {
	if len(units) == 0 || e.DryRun {
		return nil
	}
	c, _ := e.Cluster(g.key.Context)
	for attempt := 0; ; attempt++ {
		obj, err := c.Dynamic.Resource(argocd.ApplicationSets).Namespace(g.key.Namespace).Get(ctx, g.key.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		v, _ := lookup(obj.Object, "spec", ignoreDiffField)
		list, _ := v.([]any)
		var at []int
		for _, i := range units {
			if rec := g.preHeld(i); rec != nil {
				if n := lastEntryIndex(list, rec.Entry, at); n >= 0 {
					at = append(at, n)
				}
			}
		}
		if len(at) == 0 {
			return nil
		}
		sort.Sort(sort.Reverse(sort.IntSlice(at)))
		var ops patch
		ops.test(g.uid, "metadata", "uid")
		if g.createdList && len(at) == len(list) {
			ops.test(list, "spec", ignoreDiffField)
			ops.remove("spec", ignoreDiffField)
		} else {
			for _, n := range at {
				idx := fmt.Sprint(n)
				ops.test(list[n], "spec", ignoreDiffField, idx)
				ops.remove("spec", ignoreDiffField, idx)
			}
		}
		_, err = e.writeAppSet(ctx, appSetWrite{key: g.key, action: "undo-" + string(r.Kind), reason: r.Reason, ops: ops, eventReason: "DriftdeckPause",
			eventVerb: "removed the ignoreApplicationDifferences entries of children whose pause did not hold from"})
		if err != nil && PreconditionFailed(err) && attempt < maxRebinds {
			continue
		}
		return err
	}
}

// lastEntryIndex is the last index of an entry equal to entry not taken yet.
func lastEntryIndex(list []any, entry map[string]any, taken []int) int {
	for i := len(list) - 1; i >= 0; i-- {
		if sameJSON(list[i], entry) && !slices.Contains(taken, i) {
			return i
		}
	}
	return -1
}

func toAnyMaps(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}
