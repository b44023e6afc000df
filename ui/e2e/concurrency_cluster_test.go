package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testcluster"
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
	waitNoOperation(t, dyn, ns, units)
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

// executorLoad runs n actions picked at random over the load units through
// an executor of its own client, half of them bound to the version of a
// plan made first (as the workbench confirms them), half planned fresh (as
// the command line with --yes).
func executorLoad(t *testing.T, c *testcluster.Cluster, ns string, id, n int, units []*cunit, rng *rand.Rand, log *actionLog) {
	kc, err := kube.NewCluster("load", c.Config(), ns)
	if err != nil {
		t.Error(err)
		return
	}
	al, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Error(err)
		return
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: al}
	for i := range n {
		u := units[rng.IntN(len(units))]
		a := &act{unit: u, kind: u.kinds[rng.IntN(len(u.kinds))], reason: fmt.Sprintf("exe-%d-%04d", id, i), by: fmt.Sprintf("executor %d", id)}
		req := actions.Request{Kind: a.kind, Key: key(ns, u), Reason: a.reason}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var res *actions.Result
		var err error
		if rng.IntN(2) == 0 {
			var p *actions.Plan
			if p, err = exec.Plan(ctx, req); err == nil {
				req.ResourceVersion = p.ResourceVersion
			}
		}
		if err == nil {
			res, err = exec.Execute(ctx, req)
		}
		cancel()
		a.outcome, a.why = outcomeOf(res, err)
		if res != nil {
			a.token = res.Token
			a.rebound = req.ResourceVersion != "" && res.Plan.Patch[0].Value != req.ResourceVersion
		}
		log.add(a)
	}
}

func outcomeOf(res *actions.Result, err error) (string, string) {
	var refusal *actions.Refusal
	switch {
	case err == nil && res.Verified:
		return "applied", ""
	case err == nil:
		return "failed", "written but not in effect: " + strings.Join(res.Warnings, "; ")
	case errors.As(err, &refusal), errors.Is(err, actions.ErrReadOnly):
		return "refused", err.Error()
	}
	return "failed", err.Error()
}

// bulkCommands are what a worker's processes run, in turn, each on every
// load unit of one engine.
var bulkCommands = []struct {
	kind   actions.Kind
	engine model.Engine
}{
	{actions.Refresh, model.EngineArgoCD}, {actions.Retry, model.EnginePulumi}, {actions.Refresh, model.EngineKustomization},
	{actions.Pause, model.EngineKustomization}, {actions.Sync, model.EngineArgoCD}, {actions.Resume, model.EngineKustomization},
	{actions.Pause, model.EnginePulumi}, {actions.Resume, model.EnginePulumi},
}

func bulkActionCount(units []*cunit) int {
	n := 0
	for _, cmd := range bulkCommands {
		for _, u := range units {
			if u.engine == cmd.engine {
				n++
			}
		}
	}
	return n
}

// bulkProcesses runs the bulk commands, one driftdeck process each, and
// logs each unit's outcome as the process printed it.
func bulkProcesses(t *testing.T, env []string, kc, ns string, worker int, units []*cunit, log *actionLog) int {
	n := 0
	for i, cmd := range bulkCommands {
		reason := fmt.Sprintf("cli-%d-%04d", worker, i)
		// Named, not selected: a selection leaves out what it cannot do (a
		// resume, the units not paused), and each unit here is one action.
		args := []string{string(cmd.kind)}
		for _, u := range units {
			if u.engine == cmd.engine {
				args = append(args, key(ns, u).Ref())
			}
		}
		out, code, stderr := runDriftdeck(env, append(args, "--reason", reason, "--yes", "--kubeconfig", kc)...)
		by := fmt.Sprintf("process %s (worker %d)", cmd.kind, worker)
		for _, u := range units {
			if u.engine != cmd.engine {
				continue
			}
			a := &act{unit: u, kind: cmd.kind, reason: reason, by: by}
			a.outcome, a.why = bulkOutcome(out, key(ns, u).Ref())
			if a.outcome == "" {
				a.outcome, a.why = "failed", fmt.Sprintf("not reported (exit %d): %s %s", code, out, stderr)
			}
			log.add(a)
			n++
		}
	}
	return n
}

// bulkOutcome finds a unit's line in a bulk command's output.
func bulkOutcome(out, ref string) (string, string) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.TrimSuffix(strings.TrimPrefix(f[1], "load:"), ":") != ref {
			continue
		}
		_, why, _ := strings.Cut(line, ref+": ")
		switch f[0] {
		case "applied":
			return "applied", ""
		case "skipped":
			return "refused", why
		case "failed":
			return "failed", why
		}
	}
	return "", ""
}

func runDriftdeck(env []string, args ...string) (stdout string, code int, stderr string) {
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		code = -1
		errOut.WriteString(err.Error())
	}
	return out.String(), code, errOut.String()
}

// raceForUnit starts two processes pausing the unit at the same moment,
// then two resuming it, rounds times: each time exactly one may win and
// the other must be refused (exit 6) saying why.
func raceForUnit(t *testing.T, env []string, kc, ns string, u *cunit, rounds int, log *actionLog, results chan<- string) {
	ref := key(ns, u).Ref()
	for r := range rounds {
		for _, kind := range []actions.Kind{actions.Pause, actions.Resume} {
			type run struct {
				code        int
				out, stderr string
				reason      string
			}
			runs := make([]run, 2)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range runs {
				runs[i].reason = fmt.Sprintf("race-%s-%d-%s-%d", u.name, r, kind, i)
				wg.Go(func() {
					<-start
					runs[i].out, runs[i].code, runs[i].stderr = runDriftdeck(env, string(kind), ref, "--reason", runs[i].reason, "--yes", "--kubeconfig", kc)
				})
			}
			close(start)
			wg.Wait()
			won := 0
			for _, x := range runs {
				a := &act{unit: u, kind: kind, reason: x.reason, by: "racing process"}
				switch {
				case x.code == 0:
					won++
					a.outcome = "applied"
				case x.code == 6:
					a.outcome, a.why = "refused", strings.TrimSpace(x.stderr)
				default:
					a.outcome, a.why = "failed", fmt.Sprintf("exit %d: %s", x.code, x.stderr)
				}
				log.add(a)
			}
			if won != 1 {
				t.Errorf("%s round %d, two processes at once: %d won, want exactly 1:\n%+v", ref, r, won, runs)
			}
			// The loser, planned again after the winner's write, is told the
			// unit's state, not that something changed under it.
			says := map[actions.Kind]string{actions.Pause: "already paused by", actions.Resume: "is not paused by driftdeck"}[kind]
			for _, x := range runs {
				if x.code != 0 && !strings.Contains(x.stderr, says) {
					t.Errorf("%s round %d: the loser of the %s race was told %q, want %q", ref, r, kind, lastLine(x.stderr), says)
				}
				if x.code != 0 {
					results <- fmt.Sprintf("%s round %d: the loser of the %s race was told: %s", ref, r, kind, lastLine(x.stderr))
				}
			}
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// waitNoOperation waits until the controller has finished every requested
// sync.
func waitNoOperation(t *testing.T, dyn dynamic.Interface, ns string, units []*cunit) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
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
				t.Fatalf("%s: the controller did not finish the operation", u.name)
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
		if err != nil || n != sw.writes[u.name] {
			t.Errorf("%s holds status counter %d (%v), the controller logged %d writes", u.name, n, err, sw.writes[u.name])
		}
	}
}

func (s *statusWriter) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.writes {
		n += w
	}
	return n
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
