package realcontrollers

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
)

// observed is what driftdeck reads of an Application at a scenario's end.
// Revisions are named by the commit they are ("v1", "v2"), since the real
// repository and the simulator's hashes differ.
type observed struct {
	Phase          string
	Message        string // matched against the scenario's pattern
	SyncStatus     string
	Revision       string // status.sync.revision
	SyncedRevision string // operationState.syncResult.revision
	OperationSet   bool   // the top-level operation is still there
	RefreshPending bool
	InitiatedBy    string // "automated", "actor" (driftdeck's identity) or the username
}

func observe(s argoSide, revs map[string]string) observed {
	o := s.get()
	label := func(rev string) string {
		for l, r := range revs {
			if r == rev {
				return l
			}
		}
		return rev
	}
	ann, _, _ := unstructured.NestedStringMap(o, "metadata", "annotations")
	_, pending := ann[argocd.AnnotationRefresh]
	_, opSet := o["operation"]
	by := str(o, "status", "operationState", "operation", "initiatedBy", "username")
	if auto, _, _ := unstructured.NestedBool(o, "status", "operationState", "operation", "initiatedBy", "automated"); auto {
		by = "automated"
	} else if by == s.actor() {
		by = "actor"
	}
	return observed{
		Phase:          str(o, "status", "operationState", "phase"),
		Message:        str(o, "status", "operationState", "message"),
		SyncStatus:     str(o, "status", "sync", "status"),
		Revision:       label(str(o, "status", "sync", "revision")),
		SyncedRevision: label(str(o, "status", "operationState", "syncResult", "revision")),
		OperationSet:   opSet,
		RefreshPending: pending,
		InitiatedBy:    by,
	}
}

// until waits for cond on the side's app, with a generous deadline.
func until(t *testing.T, s argoSide, what string, cond func(o map[string]any) bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		o := s.get()
		if cond(o) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 90s for %s; last seen: %s %s at %s: %s\n%s", what,
				str(o, "status", "sync", "status"), str(o, "status", "operationState", "phase"),
				str(o, "status", "sync", "revision"), str(o, "status", "operationState", "message"), s.logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// refreshUntil hard-refreshes the Application until cond holds, asking
// again every 30 s as a user would: once in a CI run the real controller
// compared a hard refresh right after a commit at the commit before it,
// and nothing refreshed the Application again within 90 s (its resync is
// 120 s).
func refreshUntil(t *testing.T, s argoSide, what string, cond func(o map[string]any) bool) {
	t.Helper()
	for attempt := 1; attempt <= 3; attempt++ {
		if attempt > 1 {
			t.Logf("no %s 30 s after a hard refresh; refreshing again", what)
		}
		s.do(actions.Request{Kind: actions.HardRefresh, Key: s.key()})
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if cond(s.get()) {
				return
			}
		}
	}
	until(t, s, what, cond) // fails saying what it saw last
}

func comparedAt(rev string) func(map[string]any) bool {
	return func(o map[string]any) bool {
		return str(o, "status", "sync", "revision") == rev && str(o, "status", "sync", "status") != ""
	}
}

func completedOp(o map[string]any) bool {
	p := str(o, "status", "operationState", "phase")
	return p == "Succeeded" || p == "Failed" || p == "Error"
}

func syncedAt(rev string) func(map[string]any) bool {
	return func(o map[string]any) bool {
		return str(o, "status", "sync", "status") == "Synced" && str(o, "status", "sync", "revision") == rev &&
			str(o, "status", "operationState", "phase") == "Succeeded"
	}
}

type conformanceScenario struct {
	name string
	// run drives the app and returns the commits by name.
	run func(t *testing.T, s argoSide) map[string]string
	// want is what both controllers must leave; messageLike matches Message.
	want        observed
	messageLike string
}

var manual = map[string]any{}

var conformanceScenarios = []conformanceScenario{{
	name: "sync",
	run: func(t *testing.T, s argoSide) map[string]string {
		v1 := s.create(manual, false)
		until(t, s, "the first comparison", comparedAt(v1))
		s.do(actions.Request{Kind: actions.Sync, Key: s.key(), Reason: "conformance", Revision: v1})
		// The real controller compares again after the operation: wait for
		// that comparison, or for a failure.
		until(t, s, "the sync to end and the app compared Synced", func(o map[string]any) bool {
			p := str(o, "status", "operationState", "phase")
			return p == "Failed" || p == "Error" || syncedAt(v1)(o)
		})
		return map[string]string{"v1": v1}
	},
	want:        observed{Phase: "Succeeded", SyncStatus: "Synced", Revision: "v1", SyncedRevision: "v1", InitiatedBy: "actor"},
	messageLike: `^successfully synced \(all tasks run\)$`,
}, {
	name: "hook hang",
	run: func(t *testing.T, s argoSide) map[string]string {
		v1 := s.create(manual, true)
		until(t, s, "the first comparison", comparedAt(v1))
		s.do(actions.Request{Kind: actions.Sync, Key: s.key(), Reason: "conformance"})
		// The real controller first says "one or more tasks are running",
		// then names the hook it waits for: wait for the hook to be named.
		until(t, s, "the sync to wait on its hook", func(o map[string]any) bool {
			return str(o, "status", "operationState", "phase") == "Running" &&
				strings.HasPrefix(str(o, "status", "operationState", "message"), "waiting for completion of hook")
		})
		return map[string]string{"v1": v1}
	},
	// The revision being synced is in syncResult from the start.
	want:        observed{Phase: "Running", SyncStatus: "OutOfSync", Revision: "v1", SyncedRevision: "v1", OperationSet: true, InitiatedBy: "actor"},
	messageLike: `^waiting for completion of hook batch/Job/`,
}, {
	name: "terminate",
	run: func(t *testing.T, s argoSide) map[string]string {
		v1 := s.create(manual, true)
		until(t, s, "the first comparison", comparedAt(v1))
		s.do(actions.Request{Kind: actions.Sync, Key: s.key(), Reason: "conformance"})
		until(t, s, "the sync to start", func(o map[string]any) bool { return str(o, "status", "operationState", "phase") == "Running" })
		s.do(actions.Request{Kind: actions.Terminate, Key: s.key(), Reason: "conformance"})
		until(t, s, "the operation to end", completedOp)
		return map[string]string{"v1": v1}
	},
	want:        observed{Phase: "Failed", SyncStatus: "OutOfSync", Revision: "v1", SyncedRevision: "v1", InitiatedBy: "actor"},
	messageLike: `^Operation terminated$`,
}, {
	name: "refresh",
	run: func(t *testing.T, s argoSide) map[string]string {
		v1 := s.create(manual, false)
		until(t, s, "the first comparison", comparedAt(v1))
		before := str(s.get(), "status", "reconciledAt")
		time.Sleep(1100 * time.Millisecond) // reconciledAt has a resolution of seconds
		s.do(actions.Request{Kind: actions.HardRefresh, Key: s.key()})
		until(t, s, "the refresh handled", func(o map[string]any) bool {
			ann, _, _ := unstructured.NestedStringMap(o, "metadata", "annotations")
			_, pending := ann[argocd.AnnotationRefresh]
			return !pending && str(o, "status", "reconciledAt") != before
		})
		return map[string]string{"v1": v1}
	},
	want: observed{SyncStatus: "OutOfSync", Revision: "v1"},
}, {
	name: "pause",
	run: func(t *testing.T, s argoSide) map[string]string {
		v1 := s.create(autoSync(false), false)
		until(t, s, "auto-sync to v1", syncedAt(v1))
		s.do(actions.Request{Kind: actions.Pause, Key: s.key(), Reason: "conformance"})
		v2 := s.commit()
		refreshUntil(t, s, "the paused app compared at v2", comparedAt(v2))
		for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			if r := str(s.get(), "status", "operationState", "syncResult", "revision"); r != v1 {
				t.Fatalf("the paused app synced to %s", r)
			}
		}
		return map[string]string{"v1": v1, "v2": v2}
	},
	want:        observed{Phase: "Succeeded", SyncStatus: "OutOfSync", Revision: "v2", SyncedRevision: "v1", InitiatedBy: "automated"},
	messageLike: `^successfully synced \(all tasks run\)$`,
}, {
	name: "auto-sync",
	run: func(t *testing.T, s argoSide) map[string]string {
		v1 := s.create(autoSync(false), false)
		until(t, s, "auto-sync to v1", syncedAt(v1))
		v2 := s.commit()
		refreshUntil(t, s, "auto-sync to v2", syncedAt(v2))
		return map[string]string{"v1": v1, "v2": v2}
	},
	want:        observed{Phase: "Succeeded", SyncStatus: "Synced", Revision: "v2", SyncedRevision: "v2", InitiatedBy: "automated"},
	messageLike: `^successfully synced \(all tasks run\)$`,
}, {
	name: "self-heal",
	run: func(t *testing.T, s argoSide) map[string]string {
		v1 := s.create(autoSync(true), false)
		until(t, s, "auto-sync to v1", syncedAt(v1))
		first := str(s.get(), "status", "operationState", "startedAt")
		time.Sleep(1100 * time.Millisecond) // startedAt has a resolution of seconds
		s.editLive()
		until(t, s, "self-heal's sync", func(o map[string]any) bool {
			return str(o, "status", "operationState", "startedAt") != first && syncedAt(v1)(o)
		})
		return map[string]string{"v1": v1}
	},
	want:        observed{Phase: "Succeeded", SyncStatus: "Synced", Revision: "v1", SyncedRevision: "v1", InitiatedBy: "automated"},
	messageLike: `^successfully synced \(all tasks run\)$`,
}}

// The simulator held to the real controller: every scenario runs on both,
// through driftdeck's actions, and must end with the same fields.
func TestClusterSimulatorConformsToTheRealArgoController(t *testing.T) {
	sides := []struct {
		name string
		make func(t *testing.T, app string) argoSide
	}{{"real", newRealSide}, {"sim", newSimSide}}
	for _, side := range sides {
		t.Run(side.name, func(t *testing.T) {
			for _, sc := range conformanceScenarios {
				t.Run(sc.name, func(t *testing.T) {
					t.Parallel()
					s := side.make(t, "conf-"+regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(sc.name, "-"))
					t0 := time.Now()
					revs := sc.run(t, s)
					got := observe(s, revs)
					msg := got.Message
					t.Logf("%s on %s: %v, ends %s %q", sc.name, side.name, time.Since(t0).Round(time.Millisecond), got.Phase, msg)
					got.Message = ""
					if got != sc.want {
						t.Errorf("ended with\n %+v\nwant\n %+v", got, sc.want)
					}
					if sc.messageLike != "" && !regexp.MustCompile(sc.messageLike).MatchString(msg) {
						t.Errorf("message %q does not match %s", msg, sc.messageLike)
					}
					if sc.messageLike == "" && msg != "" {
						t.Errorf("message %q, want none", msg)
					}
				})
			}
		})
	}
}
