package actions

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// AnnotationUpdate sets one annotation to Now ("" removes it), only while
// the object still holds Was ("": absent). A remediation policy records
// its attempt count this way, in the patch of the remediation itself, so
// that two replicas never count the same attempt twice.
type AnnotationUpdate struct{ Was, Now string }

// updateAnnotations adds the operations of set to a patch written to an
// object whose current annotations are given.
func (p *patch) updateAnnotations(current map[string]string, set map[string]AnnotationUpdate) {
	if len(set) == 0 {
		return
	}
	if current == nil && !p.creates("metadata", "annotations") {
		now := map[string]string{}
		for k, u := range set {
			if u.Now != "" {
				now[k] = u.Now
			}
		}
		p.setAnnotations(nil, now) // tests the map absent: every Was is ""
		return
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		u := set[k]
		var was any
		if u.Was != "" {
			was = u.Was
		}
		p.test(was, "metadata", "annotations", k)
		if u.Now == "" {
			if u.Was != "" {
				p.remove("metadata", "annotations", k)
			}
			continue
		}
		p.add(u.Now, "metadata", "annotations", k)
	}
}

// creates tells whether the patch adds the object at path.
func (p patch) creates(path ...string) bool {
	ptr := Pointer(path...)
	return slices.ContainsFunc(p, func(o Op) bool { return o.Op == "add" && o.Path == ptr })
}

// annotationChanges says in words what set changes.
func annotationChanges(set map[string]AnnotationUpdate) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, "metadata.annotations."+k+": "+orWord(set[k].Was, "(unset)")+" → "+orWord(set[k].Now, "(removed)"))
	}
	return out
}

// Annotate writes only annotations, through the guard like every action
// (permission, audit line under action, Event): a policy clears its attempt
// count this way once the unit is healthy again.
func (e *Executor) Annotate(ctx context.Context, k model.Key, action, reason string, set map[string]AnnotationUpdate) error {
	gvr, _ := engines.Resource(k.Engine)
	a := writeguard.Attempt{Key: k, Action: action, Reason: reason, Resource: gvr}
	api := e.argoAPI(k)
	if api != nil {
		a.Authority = &argoAuthority{api: api, kind: Kind(action)}
	}
	_, err := e.guard().Do(ctx, a, func(w *writeguard.Write) error {
		c := w.Cluster
		obj, err := e.get(ctx, c, k)
		if err != nil {
			return err
		}
		var ops patch
		ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
		ops.updateAnnotations(annotationsOf(obj), set)
		body, err := ops.bytes()
		if err != nil {
			return err
		}
		w.Entry.Patch = body
		out, err := e.patchAnnotations(ctx, w, api, k, body)
		switch {
		case err != nil && PreconditionFailed(err):
			return &Refusal{Reason: fmt.Sprintf("%s changed while driftdeck wrote to it (a precondition of the patch failed): nothing written", k.Ref())}
		case err != nil && api != nil:
			return argoWriteError(Request{Key: k}, err)
		case err != nil:
			return explainWriteError(Request{Key: k}, err)
		}
		w.Entry.ResourceVersion = lookupString(out, "metadata", "resourceVersion")
		w.Event = &writeguard.Event{Reason: "DriftdeckAnnotate", Verb: "updated driftdeck's annotations of", Object: objectRef(out)}
		return nil
	})
	return err
}

// patchAnnotations sends an annotations patch through the unit's route;
// argocd-server has no dry run, so there nothing is sent in dry-run mode.
func (e *Executor) patchAnnotations(ctx context.Context, w *writeguard.Write, api *argoapi.Client, k model.Key, body []byte) (map[string]any, error) {
	if api != nil {
		if w.DryRun {
			return getThroughArgo(ctx, api, k)
		}
		return api.Patch(ctx, argoapi.AppOf(k), body)
	}
	res, _ := resourceOf(w.Cluster, k.Engine)
	out, err := w.Cluster.Dynamic.Resource(res).Namespace(k.Namespace).Patch(ctx, k.Name, types.JSONPatchType, body, w.PatchOptions("driftdeck"))
	if err != nil {
		return nil, err
	}
	return out.Object, nil
}
