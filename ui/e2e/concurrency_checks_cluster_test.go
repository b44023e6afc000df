package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// waitNoOperation waits until the controller has finished every requested
// sync; failing, it says what the test controller met.
func waitNoOperation(t *testing.T, dyn dynamic.Interface, ns string, units []*cunit, sw *statusWriter) {
	t.Helper()
	// Returns as soon as they are finished: the deadline costs time only
	// when one never is, and the controller lists again after the server
	// dropped it on a busy machine.
	deadline := time.Now().Add(2 * time.Minute)
	for _, u := range units {
		for u.engine == model.EngineArgoCD {
			o, err := dyn.Resource(u.hb.gvr).Namespace(ns).Get(context.Background(), u.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, set := o.Object["operation"]; !set {
				break
			}
			if time.Now().After(deadline) {
				// Read under the lock, failed without it: the deferred stop
				// waits for the controller, whose writers take it.
				sw.mu.Lock()
				errs, relists := slices.Clone(sw.errs), slices.Clone(sw.relists)
				seen, wrote := sw.seen[u.name], sw.writes[u.name]
				sw.mu.Unlock()
				// A watch that went quiet shows as a counter seen far below
				// the writes made.
				t.Fatalf("%s: the controller did not finish the operation %v; its errors %q, its lists again %q; its watch showed counter %d of the %d it wrote",
					u.name, o.Object["operation"], errs, relists, seen, wrote)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// checkAppliedOnce holds every action to its trace: applied, exactly one
// Event on the unit carries its reason (and a sync's operation was finished
// by the controller once, a request token seen by it); not applied, none.
// Pauses and resumes alternate on every unit, in the order of the versions
// they wrote.
func checkAppliedOnce(t *testing.T, c *testcluster.Cluster, ns string, acts []*act, sw *statusWriter) {
	t.Helper()
	evs, err := c.Kube(t).CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type pr struct {
		rv     int
		reason string
	}
	byUnitReason := map[string]int{}
	pauses := map[string][]pr{}
	for _, ev := range evs.Items {
		_, reason, _ := strings.Cut(ev.Message, ": ")
		byUnitReason[ev.InvolvedObject.Name+" "+reason]++
		if ev.Reason == "DriftdeckPause" || ev.Reason == "DriftdeckResume" {
			rv, _ := strconv.Atoi(ev.InvolvedObject.ResourceVersion)
			pauses[ev.InvolvedObject.Name] = append(pauses[ev.InvolvedObject.Name], pr{rv, ev.Reason})
		}
	}
	for _, a := range acts {
		n := byUnitReason[a.unit.name+" "+a.reason]
		switch {
		case a.outcome == "applied" && n != 1:
			t.Errorf("%s %s by %s (%s) applied, but %d Events say so", a.kind, a.unit.name, a.by, a.reason, n)
		case a.outcome != "applied" && n != 0:
			t.Errorf("%s %s by %s (%s) %s (%s), but %d Events say it was done", a.kind, a.unit.name, a.by, a.reason, a.outcome, a.why, n)
		}
		if a.outcome == "applied" && a.kind == actions.Sync && count(sw.handled[a.unit.name], a.reason) != 1 {
			t.Errorf("sync %s (%s): the controller finished it %d times, want once", a.unit.name, a.reason, count(sw.handled[a.unit.name], a.reason))
		}
		if a.outcome == "applied" && a.token != "" && (a.kind == actions.Retry || a.kind == actions.Refresh) && a.unit.engine != model.EngineArgoCD && count(sw.handled[a.unit.name], a.token) != 1 {
			t.Errorf("%s %s: the controller saw request %s %d times, want once", a.kind, a.unit.name, a.token, count(sw.handled[a.unit.name], a.token))
		}
	}
	for name, list := range pauses {
		sort.Slice(list, func(i, j int) bool { return list[i].rv < list[j].rv })
		for i, p := range list {
			want := "DriftdeckPause"
			if i%2 == 1 {
				want = "DriftdeckResume"
			}
			if p.reason != want {
				t.Errorf("%s: pause and resume do not alternate (write %d at version %d is a %s): %v", name, i, p.rv, p.reason, list)
				break
			}
		}
	}
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// checkControllerWrites: the counter each unit holds is the number of
// writes the controller logged for it, and no watch event showed it going
// back.
func checkControllerWrites(t *testing.T, dyn dynamic.Interface, ns string, units []*cunit, sw *statusWriter) {
	t.Helper()
	sw.mu.Lock()
	defer sw.mu.Unlock()
	for _, e := range sw.errs {
		t.Errorf("test controller: %s", e)
	}
	for _, b := range sw.backwards {
		t.Errorf("a controller write was lost: %s", b)
	}
	for _, u := range units {
		o, err := dyn.Resource(u.hb.gvr).Namespace(ns).Get(context.Background(), u.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n, err := u.hb.counterOf(o.Object)
		// A write sent as the controller stopped lost its answer: the
		// server holding it is no lost write.
		lostAnswer := sw.inFlight[u.name] == sw.writes[u.name]+1 && n == sw.inFlight[u.name]
		if err != nil || (n != sw.writes[u.name] && !lostAnswer) {
			t.Errorf("%s holds status counter %d (%v), the controller logged %d writes", u.name, n, err, sw.writes[u.name])
		}
	}
}

// resumeAll resumes whatever the load left paused.
func resumeAll(t *testing.T, c *testcluster.Cluster, ns string, units []*cunit) {
	t.Helper()
	kc, err := kube.NewCluster("load", c.Config(), ns)
	if err != nil {
		t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}
	for _, u := range units {
		_, err := exec.Execute(context.Background(), actions.Request{Kind: actions.Resume, Key: key(ns, u), Reason: "end of the load"})
		var refusal *actions.Refusal
		if err != nil && !(errors.As(err, &refusal) && refusal.NothingToDo) {
			t.Errorf("resuming %s after the load: %v", u.name, err)
		}
	}
}

// checkRestored: what pauses changed is byte for byte as before the test.
func checkRestored(t *testing.T, dyn dynamic.Interface, ns string, units []*cunit) {
	t.Helper()
	for _, u := range units {
		if got := pausedField(t, dyn, ns, u); got != u.initial {
			t.Errorf("%s after the load:\n%s\nbefore:\n%s", u.name, got, u.initial)
		}
	}
}

func rebinds(acts []*act) int {
	n := 0
	for _, a := range acts {
		if a.rebound {
			n++
		}
	}
	return n
}

// logRefusals lists the refusals and failures by kind of reason, for the
// record.
func logRefusals(t *testing.T, acts []*act) {
	kinds := map[string]int{}
	for _, a := range acts {
		if a.outcome != "applied" {
			kinds[a.outcome+" "+string(a.kind)+": "+genericWhy(a.why)]++
		}
	}
	var lines []string
	for k, n := range kinds {
		lines = append(lines, fmt.Sprintf("%4d  %s", n, k))
	}
	sort.Strings(lines)
	t.Logf("refusals:\n%s", strings.Join(lines, "\n"))
}

// genericWhy drops the unit and the names from a refusal, to group them.
func genericWhy(why string) string {
	for _, marker := range []string{"another operation is in progress", "already paused", "not paused by driftdeck", "changed since the plan was confirmed",
		"changed while driftdeck wrote", "already requested", "is suspended", "already suspended", "changed since the pause", "no longer true"} {
		if strings.Contains(why, marker) {
			return marker
		}
	}
	return why
}
