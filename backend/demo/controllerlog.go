package demo

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// The Flux controllers' pods, labelled as Flux's manifests label them.
// Their logs hold the last reconciles of every Kustomization and
// HelmRelease, written from each object's Ready condition in the form the
// controllers write (controller-runtime's JSON), so `logs kustomization/...`
// and `O` narrow them to one unit's lines.
var fluxControllerPods = []struct {
	pod, app, kind string
	gvr            schema.GroupVersionResource
}{
	{"kustomize-controller-5f7c9d8b6-2xq7v", "kustomize-controller", "Kustomization", flux.Kustomizations[0]},
	{"helm-controller-7d4b8c9f5-k8m2p", "helm-controller", "HelmRelease", flux.HelmReleases[0]},
}

const fluxControllerContainer = "manager"

// controllerPodObjects are the Flux controllers' running pods.
func (e *estate) controllerPodObjects() []map[string]any {
	var out []map[string]any
	for _, c := range fluxControllerPods {
		pod := e.object("v1", "Pod", fluxNS, c.pod, nil, map[string]any{
			"spec": map[string]any{"containers": []any{map[string]any{"name": fluxControllerContainer}}},
			"status": map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
				"containerStatuses": []any{map[string]any{"name": fluxControllerContainer, "ready": true, "state": map[string]any{"running": map[string]any{}}}}},
		})
		pod["metadata"].(map[string]any)["labels"] = map[string]any{"app": c.app, "app.kubernetes.io/part-of": "flux"}
		out = append(out, pod)
	}
	return out
}

// controllerLogOf is the log of a controller pod; ok is false for any
// other pod.
func (e *estate) controllerLogOf(pod string) (podLog, bool) {
	for _, c := range fluxControllerPods {
		if c.pod == pod {
			return e.controllerLog(c.app, c.kind, c.gvr), true
		}
	}
	return podLog{}, false
}

// controllerLog: the manager's start, then up to three reconciles of each
// object (at its Ready condition's last change and an interval apart),
// oldest first, interleaved as a controller's log is.
func (e *estate) controllerLog(app, kind string, gvr schema.GroupVersionResource) podLog {
	type entry struct {
		at   time.Time
		line string
	}
	started := e.now.Add(-6 * time.Hour)
	entries := []entry{{started, controllerJSON(started, "info", "starting manager", map[string]any{"logger": "setup", "controller": app})}}
	for _, o := range e.objects[gvr] {
		r := objread.New(o.Object)
		fields := map[string]any{"controller": strings.ToLower(kind), "controllerGroup": gvr.Group, "controllerKind": kind,
			kind: map[string]any{"name": o.GetName(), "namespace": o.GetNamespace()}, "name": o.GetName(), "namespace": o.GetNamespace(),
			"reconcileID": e.uid(kind+"-reconcile", o.GetNamespace(), o.GetName())[:8]}
		if suspended, _ := r.Bool("spec", "suspend"); suspended {
			entries = append(entries, entry{started, controllerJSON(started, "info", "Reconciliation is disabled", fields)})
			continue
		}
		level, msg, extra := reconcileOutcome(r, kind)
		maps.Copy(fields, extra)
		interval := parseInterval(r.Str("spec", "interval"))
		since, _ := time.Parse(time.RFC3339, readyCondition(r).Str("lastTransitionTime"))
		for i := range 3 {
			at := since.Add(time.Duration(i) * interval)
			if at.After(e.now) || at.Before(started) {
				break
			}
			entries = append(entries, entry{at, controllerJSON(at, level, msg, fields)})
		}
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return a.at.Compare(b.at) })
	var l podLog
	for _, en := range entries {
		l.history = append(l.history, en.line)
	}
	return l
}

// reconcileOutcome is what a controller logs of an object's reconcile, from
// its Ready condition: finished, failed with the condition's message as
// the error, or under way.
func reconcileOutcome(r *objread.Reader, kind string) (level, msg string, fields map[string]any) {
	ready := readyCondition(r)
	interval := r.Str("spec", "interval")
	fields = map[string]any{}
	if rev := r.Str("status", "lastAttemptedRevision"); rev != "" {
		fields["revision"] = rev
	}
	switch ready.Str("status") {
	case "True":
		if kind == "HelmRelease" {
			return "info", ready.Str("message"), fields
		}
		return "info", "Reconciliation finished in 1.318s, next run in " + interval, fields
	case "False":
		fields["error"] = ready.Str("message")
		if kind == "HelmRelease" {
			return "error", "Reconciler error", fields
		}
		return "error", "Reconciliation failed after 2.104s, next try in " + interval, fields
	}
	return "info", ready.Str("message"), fields
}

func readyCondition(r *objread.Reader) *objread.Reader {
	for _, c := range r.Objects("status", "conditions") {
		if c.Str("type") == "Ready" {
			return c
		}
	}
	return objread.New(nil)
}

// parseInterval reads spec.interval; a bad or missing one is Flux's
// common 10m.
func parseInterval(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 10 * time.Minute
	}
	return d
}

// controllerJSON is one line as controller-runtime's zap encoder writes it.
func controllerJSON(at time.Time, level, msg string, fields map[string]any) string {
	m := map[string]any{"level": level, "ts": at.UTC().Format("2006-01-02T15:04:05.000Z"), "msg": msg}
	maps.Copy(m, fields)
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf(`{"level":"error","msg":%q}`, err.Error())
	}
	return string(b)
}
