package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// The ApplicationSet controller regenerates each Application it owns from
// its template and patches away every difference, annotations included
// (argo-cd applicationset/controllers/applicationset_controller.go,
// createOrUpdateInCluster; applicationset/utils/createOrUpdate.go,
// CreateOrUpdate), so a pause of such an Application alone is reverted at its
// next reconcile. What it leaves alone are the paths an
// spec.ignoreApplicationDifferences entry names for that Application
// (applyIgnoreDifferences removes them from the live and the generated object
// before the comparison): a pause of an ApplicationSet-owned Application adds
// one such entry, naming the child and exactly the paths the pause writes,
// and resume removes exactly that entry (ADR 0014).

const (
	ignoreDiffField = "ignoreApplicationDifferences"
	// appSetEngine names an ApplicationSet in audit lines and Events
	// ("applicationset/<namespace>/<name>", as `driftdeck tree` names it).
	appSetEngine model.Engine = "applicationset"
)

// OtherWrite is a write a plan makes to another object than its unit, shown
// with the unit's own changes: to which object, what, and when.
type OtherWrite struct {
	// Object is the object written, e.g. "applicationset/argocd/storefront".
	Object string
	// ResourceVersion of the object the write was planned from.
	ResourceVersion string
	// When is "before" or "after" the unit's own patch.
	When    string
	Changes []string
	// Patch is the JSON patch sent, preconditions first.
	Patch []Op
}

// Heading introduces the write's changes in confirm dialogs and --dry-run.
func (o OtherWrite) Heading() string {
	return fmt.Sprintf("and to %s, %s the unit's own patch (JSON patch on resourceVersion %s, %d operations, tests first):",
		o.Object, o.When, o.ResourceVersion, len(o.Patch))
}

// ownerHold is the ApplicationSet write that makes a pause of its child hold.
type ownerHold struct {
	key       model.Key // applicationset/<namespace>/<name>, for the guard
	patch     patch
	eventVerb string
	// first: written before the unit's patch (pause), else after (resume).
	first bool
	// entry is the ignoreApplicationDifferences entry added or removed.
	entry map[string]any
	// createdList: the pause's entry is the first of the list.
	createdList bool
}

// holdRecord is the value of pause.AnnotationOwnerHold on the child.
type holdRecord struct {
	ApplicationSet string         `json:"applicationSet"`
	UID            string         `json:"uid"`
	Entry          map[string]any `json:"entry"`
	// CreatedList: the ApplicationSet had no ignoreApplicationDifferences
	// before the pause, so resume removes the list when only the entry is left.
	CreatedList bool `json:"createdList,omitempty"`
}

// appSetOwner is the name of the ApplicationSet that owns an Application
// (its controller reference), or "".
func appSetOwner(u *model.Unit) string {
	name, ok := strings.CutPrefix(u.Owner, "ApplicationSet/")
	if !ok {
		return ""
	}
	return name
}

// readAppSet reads the owner of a child, checking it is still the object
// the child's ownerReference names (same uid). nil when it is gone.
func (env *planEnv) readAppSet(child map[string]any, namespace, name string) (map[string]any, error) {
	obj, err := env.cluster.Dynamic.Resource(argocd.ApplicationSets).Namespace(namespace).Get(env.ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the owning ApplicationSet %s/%s: %w", namespace, name, err)
	}
	uid := lookupString(obj.Object, "metadata", "uid")
	for _, ref := range ownerReferencesOf(child) {
		if ref["kind"] == "ApplicationSet" && ref["name"] == name && ref["uid"] == uid {
			return obj.Object, nil
		}
	}
	return nil, nil
}

func ownerReferencesOf(obj map[string]any) []map[string]any {
	v, _ := lookup(obj, "metadata", "ownerReferences")
	list, _ := v.([]any)
	var out []map[string]any
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// mayPatchAppSets refuses, saying why, when the actor may not patch the
// ApplicationSet: a pause without the entry would not hold, and a resume
// without removing it would leave the child cut off from its template.
func (env *planEnv) mayPatchAppSets(u *model.Unit, appSet, doing string) error {
	v, err := env.cluster.Access.Can(env.ctx, "patch", argocd.ApplicationSets, u.Key.Namespace, "")
	if err != nil {
		return err
	}
	if v.Allowed {
		return nil
	}
	return &Refusal{Permission: true, Reason: fmt.Sprintf(
		"%s is generated by ApplicationSet %s/%s, whose controller reverts edits of it; %s also writes an ignoreApplicationDifferences entry on that ApplicationSet, and %s may not patch applicationsets in %s (%s): nothing written, ask for patch on applicationsets or change the ApplicationSet's template",
		u.Key.Ref(), u.Key.Namespace, appSet, doing, env.actor, u.Key.Namespace, orWord(v.Reason, "no RBAC rule allows it"))}
}

// planPauseHold plans the entry that keeps what a pause writes on the child
// (the policy path and the pause annotations) out of the ApplicationSet
// controller's comparison. It returns nil when no ApplicationSet owns the
// child any more. The record is the value of pause.AnnotationOwnerHold,
// whose own path the entry names too.
func planPauseHold(env *planEnv, u *model.Unit, child map[string]any, policyPath []string, annotations []string) (*ownerHold, *OtherWrite, string, error) {
	name := appSetOwner(u)
	if name == "" {
		return nil, nil, "", nil
	}
	if err := env.mayPatchAppSets(u, name, "a pause that holds"); err != nil {
		return nil, nil, "", err
	}
	set, err := env.readAppSet(child, u.Key.Namespace, name)
	if err != nil || set == nil {
		return nil, nil, "", err
	}
	pointers := []string{Pointer(policyPath...)}
	for _, k := range append(annotations, pause.AnnotationOwnerHold) {
		pointers = append(pointers, Pointer("metadata", "annotations", k))
	}
	entry := map[string]any{"name": u.Key.Name, "jsonPointers": toAnyList(pointers)}
	list, present := lookup(set, "spec", ignoreDiffField)
	rec := holdRecord{ApplicationSet: name, UID: lookupString(set, "metadata", "uid"), Entry: entry, CreatedList: !present}

	var ops patch
	ops.test(rec.UID, "metadata", "uid")
	if present {
		// The list as read: a concurrent writer's entry is never lost, and a
		// failed test plans again from a fresh read.
		ops.test(list, "spec", ignoreDiffField)
		ops.add(entry, "spec", ignoreDiffField, "-")
	} else {
		ops.test(nil, "spec", ignoreDiffField)
		ops.add([]any{entry}, "spec", ignoreDiffField)
	}
	ref := model.Key{Context: u.Key.Context, Engine: appSetEngine, Namespace: u.Key.Namespace, Name: name}
	hold := &ownerHold{key: ref, patch: ops, first: true, entry: entry, createdList: !present,
		eventVerb: "added an ignoreApplicationDifferences entry, so that the pause of " + u.Key.Ref() + " holds, to"}
	shown := &OtherWrite{Object: ref.Ref(), ResourceVersion: lookupString(set, "metadata", "resourceVersion"), When: "before", Patch: ops,
		Changes: []string{"spec.ignoreApplicationDifferences: + " + compactJSON(entry) + " (its controller then keeps these fields of " + u.Key.Name + " as they are live)"}}
	return hold, shown, compactJSON(rec), nil
}

// planResumeHold plans the removal of exactly the entry the pause added;
// other entries stay byte for byte. Nothing when the pause added none.
func planResumeHold(env *planEnv, u *model.Unit, child map[string]any) (*ownerHold, *OtherWrite, []string, error) {
	raw, ok := annotationsOf(child)[pause.AnnotationOwnerHold]
	if !ok {
		return nil, nil, nil, nil
	}
	var rec holdRecord
	if err := json.Unmarshal([]byte(raw), &rec); err != nil || rec.ApplicationSet == "" || rec.Entry == nil {
		return nil, nil, nil, refusef("%s: the recorded ApplicationSet entry %q cannot be read; remove the entry for %s from the ApplicationSet's spec.ignoreApplicationDifferences by hand", u.Key.Ref(), raw, u.Key.Name)
	}
	if err := env.mayPatchAppSets(u, rec.ApplicationSet, "resuming it"); err != nil {
		return nil, nil, nil, err
	}
	set, err := env.readAppSet(child, u.Key.Namespace, rec.ApplicationSet)
	if err != nil {
		return nil, nil, nil, err
	}
	if set == nil || lookupString(set, "metadata", "uid") != rec.UID {
		return nil, nil, []string{"ApplicationSet " + u.Key.Namespace + "/" + rec.ApplicationSet + " that held the pause is gone: only the Application is restored"}, nil
	}
	v, _ := lookup(set, "spec", ignoreDiffField)
	list, _ := v.([]any)
	at := -1
	for i, e := range list {
		if reflect.DeepEqual(normalizeJSON(e), normalizeJSON(rec.Entry)) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, nil, []string{"the ignoreApplicationDifferences entry the pause added to ApplicationSet " + rec.ApplicationSet + " is no longer there (somebody removed it): only the Application is restored"}, nil
	}
	var ops patch
	ops.test(rec.UID, "metadata", "uid")
	change := "spec.ignoreApplicationDifferences: - " + compactJSON(rec.Entry)
	if rec.CreatedList && len(list) == 1 {
		ops.test(list, "spec", ignoreDiffField)
		ops.remove("spec", ignoreDiffField)
		change += " (the list the pause created is removed)"
	} else {
		idx := fmt.Sprint(at)
		ops.test(list[at], "spec", ignoreDiffField, idx)
		ops.remove("spec", ignoreDiffField, idx)
		change += fmt.Sprintf(" (entry %d; the other %d stay as they are)", at, len(list)-1)
	}
	ref := model.Key{Context: u.Key.Context, Engine: appSetEngine, Namespace: u.Key.Namespace, Name: rec.ApplicationSet}
	hold := &ownerHold{key: ref, patch: ops, entry: rec.Entry,
		eventVerb: "removed the ignoreApplicationDifferences entry of the resumed " + u.Key.Ref() + " from"}
	shown := &OtherWrite{Object: ref.Ref(), ResourceVersion: lookupString(set, "metadata", "resourceVersion"), When: "after", Patch: ops,
		Changes: []string{change}}
	return hold, shown, nil, nil
}

// undoHold is the patch that takes back an entry just added (the list too
// when the pause created it), found on the ApplicationSet as the server
// returned it.
func undoHold(set map[string]any, h *ownerHold) (patch, bool) {
	v, _ := lookup(set, "spec", ignoreDiffField)
	list, _ := v.([]any)
	for i := len(list) - 1; i >= 0; i-- {
		if !reflect.DeepEqual(normalizeJSON(list[i]), normalizeJSON(h.entry)) {
			continue
		}
		var ops patch
		if h.createdList && len(list) == 1 {
			ops.test(list, "spec", ignoreDiffField)
			ops.remove("spec", ignoreDiffField)
			return ops, true
		}
		idx := fmt.Sprint(i)
		ops.test(list[i], "spec", ignoreDiffField, idx)
		ops.remove("spec", ignoreDiffField, idx)
		return ops, true
	}
	return nil, false
}

func toAnyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// writeHold sends an ApplicationSet's part of a pause or resume through a
// guard of its own: permission to patch applicationsets, its audit line and
// its Event, server-side dry run in dry-run mode. It returns the
// ApplicationSet as the server returned it.
func (e *Executor) writeHold(ctx context.Context, req Request, p *Plan, ops patch, action string) (map[string]any, error) {
	h := p.hold
	var out map[string]any
	_, err := e.guard().Do(ctx, writeguard.Attempt{Key: h.key, Action: action, Reason: req.Reason, Resource: argocd.ApplicationSets}, func(w *writeguard.Write) error {
		body, err := ops.bytes()
		if err != nil {
			return err
		}
		w.Entry.Patch = body
		opts := metav1.PatchOptions{FieldManager: "driftdeck"}
		if w.DryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		obj, err := w.Cluster.Dynamic.Resource(argocd.ApplicationSets).Namespace(h.key.Namespace).Patch(ctx, h.key.Name, types.JSONPatchType, body, opts)
		if err != nil {
			return err
		}
		out = obj.Object
		w.Entry.ResourceVersion = obj.GetResourceVersion()
		w.Event = &writeguard.Event{Reason: p.eventReason, Verb: h.eventVerb, Object: corev1.ObjectReference{
			APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion(),
		}}
		return nil
	})
	return out, err
}

// undoHold takes back the entry of a pause whose own patch failed, so that
// no entry is left for a child that is not paused; failed is that error.
func (e *Executor) undoHold(ctx context.Context, req Request, p *Plan, held map[string]any, failed error) error {
	ops, found := undoHold(held, p.hold)
	if !found {
		return failed
	}
	if _, err := e.writeHold(ctx, req, p, ops, "undo-"+string(req.Kind)); err != nil {
		return fmt.Errorf("%w; and the ignoreApplicationDifferences entry written to %s just before could not be taken back (remove the entry for %s by hand): %v", failed, p.hold.key.Ref(), req.Key.Name, err)
	}
	return failed
}

// holdError words a failed ApplicationSet write.
func holdError(h *ownerHold, err error) error {
	switch {
	case preconditionFailed(err):
		return &Refusal{Reason: h.key.Ref() + " changed while driftdeck wrote to it (a precondition of the patch failed): nothing written; look again and retry"}
	case apierrors.IsForbidden(err):
		return &Refusal{Reason: "the cluster refused the write to " + h.key.Ref() + ": " + err.Error(), Permission: true}
	case apierrors.IsNotFound(err):
		return &Refusal{Reason: h.key.Ref() + " does not exist (any more)", NotFound: true}
	}
	return err
}
