package sim_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/demo/inmem"
	"github.com/driftdeck/driftdeck/backend/sim"
)

func appSetAPI() dynamic.Interface {
	return inmem.New(
		inmem.Resource{GVR: argocd.Applications, Kind: "Application", Namespaced: true},
		inmem.Resource{GVR: argocd.ApplicationSets, Kind: "ApplicationSet", Namespaced: true, Status: true},
	).Dynamic()
}

// appSet generates web and api (a Go template), self-healing, with the
// extra spec fields given.
func appSet(extra map[string]any) map[string]any {
	spec := map[string]any{
		"goTemplate": true,
		"generators": []any{map[string]any{"list": map[string]any{"elements": []any{
			map[string]any{"svc": "web"}, map[string]any{"svc": "api"}}}}},
		"template": map[string]any{
			"metadata": map[string]any{"name": "{{.svc}}", "labels": map[string]any{"team": "t"}},
			"spec": map[string]any{
				"project":     "default",
				"source":      map[string]any{"repoURL": repo, "path": "apps/{{.svc}}", "targetRevision": "main"},
				"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "{{.svc}}"},
				"syncPolicy":  map[string]any{"automated": map[string]any{"prune": true, "selfHeal": true}},
			},
		},
	}
	for k, v := range extra {
		spec[k] = v
	}
	return map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
		"metadata": map[string]any{"namespace": "argocd", "name": "team"}, "spec": spec}
}

// startAppSet runs the controller on a fresh API with the ApplicationSet
// and waits for both children.
func startAppSet(t *testing.T, opts sim.AppSetOptions, extra map[string]any) (dynamic.Interface, *sim.AppSet) {
	dyn := appSetAPI()
	create(t, dyn, argocd.ApplicationSets, appSet(extra))
	opts.Resync = 10 * time.Millisecond
	ctl := sim.NewAppSet(dyn, opts)
	run(t, ctl.Run, ctl.Ready())
	for _, name := range []string{"web", "api"} {
		eventually(t, 5*time.Second, name+" generated", func() (bool, string) {
			_, err := dyn.Resource(argocd.Applications).Namespace("argocd").Get(t.Context(), name, metav1.GetOptions{})
			return err == nil, fmt.Sprint(err)
		})
	}
	return dyn, ctl
}

// afterReconcile waits for a reconcile that started after the call.
func afterReconcile(t *testing.T, ctl *sim.AppSet) {
	seen := ctl.Passes("argocd", "team")
	eventually(t, 5*time.Second, "a reconcile", func() (bool, string) {
		return ctl.Passes("argocd", "team") >= seen+2, fmt.Sprint(ctl.Passes("argocd", "team"))
	})
}

// edit is what a person's pause writes: auto-sync off and an annotation.
var edit = map[string]any{
	"metadata": map[string]any{"annotations": map[string]any{"driftdeck.io/paused-by": "me", argocd.AnnotationRefresh: "normal", "kept": "yes"}},
	"spec":     map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{"enabled": false}}},
}

func TestAppSetControllerFollowsTheUpstreamRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  sim.AppSetOptions
		extra map[string]any
		// kept: web's edit survives the reconcile; annotation: which of the
		// edit's annotations survive on web.
		kept        bool
		annotations []string
	}{
		{name: "sync policy: the template wins, preserved annotations stay",
			extra:       map[string]any{"preservedFields": map[string]any{"annotations": []any{"kept"}}},
			annotations: []string{argocd.AnnotationRefresh, "kept"}},
		{name: "an ignore entry naming web keeps its paths",
			extra: map[string]any{"ignoreApplicationDifferences": []any{map[string]any{"name": "web",
				"jsonPointers": []any{"/spec/syncPolicy/automated/enabled", "/metadata/annotations/driftdeck.io~1paused-by"}}}},
			kept: true, annotations: []string{argocd.AnnotationRefresh, "driftdeck.io/paused-by"}},
		{name: "an ignore entry naming another app does not",
			extra: map[string]any{"ignoreApplicationDifferences": []any{map[string]any{"name": "api",
				"jsonPointers": []any{"/spec/syncPolicy/automated/enabled"}}}},
			annotations: []string{argocd.AnnotationRefresh}},
		{name: "applicationsSync create-only counts only with the override",
			extra:       map[string]any{"syncPolicy": map[string]any{"applicationsSync": "create-only"}},
			annotations: []string{argocd.AnnotationRefresh}},
		{name: "applicationsSync create-only with the override: no updates",
			opts:        sim.AppSetOptions{EnablePolicyOverride: true},
			extra:       map[string]any{"syncPolicy": map[string]any{"applicationsSync": "create-only"}},
			kept:        true,
			annotations: []string{argocd.AnnotationRefresh, "driftdeck.io/paused-by", "kept"}},
		{name: "the controller's create-update policy updates",
			opts:        sim.AppSetOptions{Policy: "create-update"},
			annotations: []string{argocd.AnnotationRefresh}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dyn, ctl := startAppSet(t, tc.opts, tc.extra)
			afterReconcile(t, ctl)
			patch(t, dyn, argocd.Applications, "argocd", "web", types.MergePatchType, edit)
			afterReconcile(t, ctl)
			web := get(t, dyn, argocd.Applications, "argocd", "web")
			enabled, set := web.Bool("spec", "syncPolicy", "automated", "enabled")
			if off := set && !enabled; off != tc.kept {
				t.Errorf("auto-sync off after the reconcile: %v, want %v", off, tc.kept)
			}
			ann := web.StringMap("metadata", "annotations")
			if len(ann) != len(tc.annotations) {
				t.Errorf("annotations %v, want exactly %v", ann, tc.annotations)
			}
			for _, k := range tc.annotations {
				if _, ok := ann[k]; !ok {
					t.Errorf("annotation %s lost: %v", k, ann)
				}
			}
			if api := get(t, dyn, argocd.Applications, "argocd", "api"); api.Str("spec", "source", "path") != "apps/api" || api.StringMap("metadata", "labels")["team"] != "t" {
				t.Errorf("api not rendered from the template: %v", api.At("spec"))
			}
		})
	}
}
