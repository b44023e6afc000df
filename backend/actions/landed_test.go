package actions

import (
	"testing"
	"time"
)

func TestALostSyncIsJudgedByTheOperationAndWhatTheControllerMadeOfIt(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 500_000_000, time.UTC)
	op := map[string]any{"initiatedBy": map[string]any{"username": "ann"}, "info": []any{map[string]any{"name": "Reason", "value": "INC-7"}}}
	autoOp := map[string]any{"initiatedBy": map[string]any{"automated": true}}
	state := func(o map[string]any, phase, started string) map[string]any {
		return map[string]any{"status": map[string]any{"operationState": map[string]any{"operation": o, "phase": phase, "startedAt": started}}}
	}
	finishedBefore := state(map[string]any{"initiatedBy": map[string]any{"username": "bob"}}, "Succeeded", "2026-12-01T09:00:00Z")
	for _, c := range []struct {
		name          string
		before, after map[string]any
		want          landing
	}{
		{"the operation in place", map[string]any{}, map[string]any{"operation": op}, landed},
		{"taken up by the controller", map[string]any{}, merged(map[string]any{"operation": op}, state(op, "Running", "2026-12-01T10:00:01Z")), landed},
		{"finished by the controller in the same second", finishedBefore, state(op, "Succeeded", "2026-12-01T10:00:00Z"), landed},
		{"nothing since, no operation before", map[string]any{}, map[string]any{}, notLanded},
		{"nothing since, the finished one before", finishedBefore, finishedBefore, notLanded},
		{"one just like it, started in the same second, before", state(op, "Succeeded", "2026-12-01T10:00:00Z"), state(op, "Succeeded", "2026-12-01T10:00:00Z"), landingUnknown},
		// Ours would have removed the state; only after it ran could the
		// controller request an auto-sync.
		{"an auto-sync requested since, the state as before", finishedBefore, merged(map[string]any{"operation": autoOp}, finishedBefore), notLanded},
		{"an auto-sync run since", finishedBefore, state(autoOp, "Running", "2026-12-01T10:00:02Z"), landingUnknown},
		{"ours recorded as started before the write", map[string]any{}, state(op, "Succeeded", "2026-12-01T09:59:59Z"), landingUnknown},
	} {
		if got, why := operationLanded(c.before, op, at)(c.after); got != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

func TestALostRefreshIsJudgedByTheAnnotationAndTheComparisonSince(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 500_000_000, time.UTC)
	obj := func(annotation, reconciledAt string) map[string]any {
		o := map[string]any{"metadata": map[string]any{}, "status": map[string]any{"reconciledAt": reconciledAt}}
		if annotation != "" {
			o["metadata"] = map[string]any{"annotations": map[string]any{"argocd.argoproj.io/refresh": annotation}}
		}
		return o
	}
	before := obj("", "2026-12-01T09:58:00Z")
	for _, c := range []struct {
		name, level string
		after       map[string]any
		want        landing
	}{
		{"the request in place", "normal", obj("normal", "2026-12-01T09:58:00Z"), landed},
		{"compared since, the request removed", "normal", obj("", "2026-12-01T10:00:00Z"), landed},
		{"not compared since, no request", "normal", obj("", "2026-12-01T09:58:00Z"), notLanded},
		{"another writer's hard request", "normal", obj("hard", "2026-12-01T09:58:00Z"), landingUnknown},
		{"compared, but recorded before the write", "normal", obj("", "2026-12-01T09:59:00Z"), landingUnknown},
		{"a hard request in place", "hard", obj("hard", "2026-12-01T09:58:00Z"), landed},
		{"compared since: hard or not, nothing says", "hard", obj("", "2026-12-01T10:00:01Z"), landingUnknown},
		{"a hard refresh not compared since", "hard", obj("", "2026-12-01T09:58:00Z"), notLanded},
	} {
		if got, why := refreshLanded(before, c.level, at)(c.after); got != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

// merged is a shallow union of objects, the later one's keys winning.
func merged(objs ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, o := range objs {
		for k, v := range o {
			out[k] = v
		}
	}
	return out
}

func TestALostReconcileRequestIsJudgedByItsTokenAndTheStatusThatHandledIt(t *testing.T) {
	obj := func(request, handled string) map[string]any {
		o := map[string]any{"metadata": map[string]any{}, "status": map[string]any{"lastHandledReconcileAt": handled}}
		if request != "" {
			o["metadata"] = map[string]any{"annotations": map[string]any{"reconcile.fluxcd.io/requestedAt": request}}
		}
		return o
	}
	const ours = "2026-12-01T10:00:00.5Z"
	before := obj("2026-12-01T09:00:00Z", "2026-12-01T09:00:00Z")
	for _, c := range []struct {
		name   string
		before map[string]any
		after  map[string]any
		want   landing
	}{
		{"ours in place", before, obj(ours, "2026-12-01T09:00:00Z"), landed},
		{"another written over ours after it was handled", before, obj("2026-12-01T10:00:01Z", ours), landed},
		{"the one before still there", before, obj("2026-12-01T09:00:00Z", "2026-12-01T09:00:00Z"), notLanded},
		{"none before, none now", obj("", ""), obj("", ""), notLanded},
		{"another since, ours not seen handled", before, obj("2026-12-01T10:00:01Z", "2026-12-01T10:00:01Z"), landingUnknown},
		{"the request removed since", before, obj("", "2026-12-01T09:00:00Z"), landingUnknown},
	} {
		if got, why := requestLanded(c.before, "reconcile.fluxcd.io/requestedAt", ours, []string{"status", "lastHandledReconcileAt"})(c.after); got != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

func TestALostTerminateIsJudgedByThePhaseOfTheOperationItStops(t *testing.T) {
	state := func(phase, message, started string) map[string]any {
		return map[string]any{"status": map[string]any{"operationState": map[string]any{"phase": phase, "message": message, "startedAt": started}}}
	}
	const started = "2026-12-01T09:00:00Z"
	before := state("Running", "one or more tasks are running", started)
	for _, c := range []struct {
		name  string
		after map[string]any
		want  landing
	}{
		{"Terminating", state("Terminating", "operation is terminating", started), landed},
		{"terminated by the controller", state("Failed", "Operation terminated", started), landed},
		{"still Running", before, notLanded},
		{"succeeded on its own", state("Succeeded", "successfully synced (all tasks run)", started), landingUnknown},
		{"failed on its own", state("Failed", "one or more objects failed to apply", started), landingUnknown},
		{"another operation since", state("Running", "one or more tasks are running", "2026-12-01T10:00:00Z"), landingUnknown},
	} {
		if got, why := terminateLanded(before)(c.after); got != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}
