package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// cunit is one unit of the concurrency test and the part of its spec a
// pause changes and a resume must give back byte for byte.
type cunit struct {
	name    string
	engine  model.Engine
	hb      heartbeat
	paused  []string // the path a pause writes
	kinds   []actions.Kind
	initial string // the paused path's JSON before the test
}

// act is one action and what driftdeck said of it.
type act struct {
	unit    *cunit
	kind    actions.Kind
	reason  string
	by      string // "executor 2", "process 7"
	outcome string // applied, refused, failed
	why     string
	token   string
	// rebound: confirmed at one version, written at a newer one because only
	// status had moved.
	rebound bool
}

// actionLog collects every action's outcome from every actor.
type actionLog struct {
	mu   sync.Mutex
	acts []*act
}

func (l *actionLog) add(a *act) {
	l.mu.Lock()
	l.acts = append(l.acts, a)
	l.mu.Unlock()
}

// A thousand actions from several driftdeck processes and in-process
// executors at once, on Applications, Stacks and Kustomizations whose
// status a test controller rewrites 50 times a second: each action is
// applied exactly once (one Event, one operation or request seen by the
// controller) or refused or failed with a reason; not one of the
// controller's writes is lost; pauses and resumes alternate on every unit,
// and two processes racing to pause (or resume) the same unit give exactly
// one winner, the other told why; the paused fields end byte for byte as
// they began.
func TestClusterAThousandActionsFromSeveralProcessesAgainstAStatusWriter(t *testing.T) {
	const total, statusWrites, executors, cliWorkers, raceRounds = 1000, 50, 4, 2, 3
	c := testcluster.Start(t, testcluster.Options{CRDSets: testcluster.UpstreamCRDSetsNamed(t, "argocd-v3.5.1", "pulumi-operator-v2.9.0", "flux")})
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	units := seedConcurrencyUnits(t, dyn, ns)
	var load, racers []*cunit
	for _, u := range units {
		if strings.HasPrefix(u.name, "race-") {
			racers = append(racers, u)
		} else {
			load = append(load, u)
		}
	}
	var writerUnits []writerUnit
	for _, u := range units {
		writerUnits = append(writerUnits, writerUnit{name: u.name, hb: u.hb})
	}
	sw := newStatusWriter(dyn, ns, writerUnits)
	ctx, stop := context.WithCancel(context.Background())
	writer := sw.run(ctx, statusWrites)
	defer func() { stop(); writer.Wait() }()

	kc := testcluster.Kubeconfig(t, c.Config(), "load")
	env := append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	log := &actionLog{}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)

	t0 := time.Now()
	var wg sync.WaitGroup
	// Real processes racing for the same unit, two at a time.
	raceResults := make(chan string, 100)
	for _, u := range racers {
		wg.Go(func() { raceForUnit(t, env, kc, ns, u, raceRounds, log, raceResults) })
	}
	// Real processes doing bulk actions on the load units.
	cliCount := 0
	var cliMu sync.Mutex
	for w := range cliWorkers {
		wg.Go(func() {
			n := bulkProcesses(t, env, kc, ns, w, load, log)
			cliMu.Lock()
			cliCount += n
			cliMu.Unlock()
		})
	}
	// In-process executors, each with its own client, for the rest. The
	// processes' share is known ahead: 8 commands per worker over the
	// engines' load units, 4 per race round.
	perBulk := bulkActionCount(load)
	inProcess := total - cliWorkers*perBulk - len(racers)*raceRounds*4
	for i := range executors {
		n := inProcess / executors
		if i < inProcess%executors {
			n++
		}
		wg.Go(func() { executorLoad(t, c, ns, i, n, load, rand.New(rand.NewPCG(uint64(seed), uint64(i))), log) })
	}
	wg.Wait()
	elapsed := time.Since(t0)
	close(raceResults)

	// Let the controller answer the last operations, then stop it.
	waitNoOperation(t, dyn, ns, units, sw)
	stop()
	writer.Wait()

	acts := log.acts
	if len(acts) != total {
		t.Errorf("%d actions done, want %d (processes %d)", len(acts), total, cliCount)
	}
	counts := map[string]int{}
	for _, a := range acts {
		counts[a.outcome]++
		if a.outcome != "applied" && strings.TrimSpace(a.why) == "" {
			t.Errorf("%s %s by %s: %s without a reason", a.kind, a.unit.name, a.by, a.outcome)
		}
		// A failure with its reason is a kept promise (a bulk command reports
		// a refusal such as "another operation is in progress" so); one that
		// went unreported, or a write that did not take, is not.
		if a.outcome == "failed" && (strings.Contains(a.why, "not reported") || strings.Contains(a.why, "not in effect")) {
			t.Errorf("%s %s by %s failed: %s", a.kind, a.unit.name, a.by, a.why)
		}
	}
	checkAppliedOnce(t, c, ns, acts, sw)
	checkControllerWrites(t, dyn, ns, units, sw)
	for r := range raceResults {
		t.Log(r)
	}
	for _, r := range sw.relists {
		t.Logf("the test controller listed again: %s", r)
	}
	for _, r := range sw.lostAnswers {
		t.Logf("the test controller lost an answer and wrote again: %s", r)
	}
	resumeAll(t, c, ns, units)
	checkRestored(t, dyn, ns, units)
	t.Logf("%d actions in %v (%.0f/s): %d applied, %d refused, %d failed with the reason; %d status writes by the controller (%.0f/s, %d conflicts it retried), %d confirmed writes driftdeck bound again to a newer version",
		len(acts), elapsed.Round(time.Millisecond), float64(len(acts))/elapsed.Seconds(), counts["applied"], counts["refused"], counts["failed"],
		sw.total(), float64(sw.total())/time.Since(t0).Seconds(), sw.conflicts, rebinds(acts))
	logRefusals(t, acts)
}

func seedConcurrencyUnits(t *testing.T, dyn dynamic.Interface, ns string) []*cunit {
	argoKinds := []actions.Kind{actions.Sync, actions.Refresh, actions.Pause, actions.Resume}
	stackKinds := []actions.Kind{actions.Retry, actions.Pause, actions.Resume}
	fluxKinds := []actions.Kind{actions.Refresh, actions.Pause, actions.Resume}
	var out []*cunit
	add := func(name string, engine model.Engine, hb heartbeat, paused []string, kinds []actions.Kind, text string) {
		label := `"load":"yes"`
		if strings.HasPrefix(name, "race-") {
			label = `"load":"no"`
		}
		text = strings.Replace(text, `"metadata":{`, `"metadata":{"labels":{`+label+`},`, 1)
		create(t, dyn, hb.gvr, ns, fmt.Sprintf(text, name))
		out = append(out, &cunit{name: name, engine: engine, hb: hb, paused: paused, kinds: kinds})
	}
	const app = `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":%q},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web","targetRevision":"main"},
		"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},
		"syncPolicy":{"automated":{"prune":true,"selfHeal":true},"syncOptions":["CreateNamespace=true"],"retry":{"limit":2}}},
		"status":{"sync":{"status":"OutOfSync","revision":"1111111111111111111111111111111111111111"},"health":{"status":"Healthy"}}}`
	const stack = `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":%q},"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"}}`
	const kust = `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q},
		"spec":{"interval":"10m","prune":true,"path":"./web","sourceRef":{"kind":"GitRepository","name":"infra"}}}`
	for i := range 4 {
		add(fmt.Sprintf("app-%d", i), model.EngineArgoCD, argoHeartbeat, []string{"spec", "syncPolicy"}, argoKinds, app)
	}
	for i := range 3 {
		add(fmt.Sprintf("stack-%d", i), model.EnginePulumi, stackHeartbeat, []string{"spec", "preview"}, stackKinds, stack)
		add(fmt.Sprintf("ks-%d", i), model.EngineKustomization, kustHeartbeat, []string{"spec", "suspend"}, fluxKinds, kust)
	}
	add("race-app", model.EngineArgoCD, argoHeartbeat, []string{"spec", "syncPolicy"}, argoKinds, app)
	add("race-stack", model.EnginePulumi, stackHeartbeat, []string{"spec", "preview"}, stackKinds, stack)
	add("race-ks", model.EngineKustomization, kustHeartbeat, []string{"spec", "suspend"}, fluxKinds, kust)
	for _, u := range out {
		u.initial = pausedField(t, dyn, ns, u)
	}
	return out
}

// pausedField is the JSON of what a pause changes, with the unit's
// driftdeck annotations (none when not paused).
func pausedField(t *testing.T, dyn dynamic.Interface, ns string, u *cunit) string {
	t.Helper()
	o, err := dyn.Resource(u.hb.gvr).Namespace(ns).Get(context.Background(), u.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, _, _ := unstructured.NestedFieldNoCopy(o.Object, u.paused...)
	ann := map[string]string{}
	for k, val := range o.GetAnnotations() {
		if strings.HasPrefix(k, "driftdeck.io/") {
			ann[k] = val
		}
	}
	b, _ := json.Marshal(map[string]any{"field": v, "annotations": ann})
	return string(b)
}

func key(ns string, u *cunit) model.Key {
	return model.Key{Context: "load", Engine: u.engine, Namespace: ns, Name: u.name}
}
