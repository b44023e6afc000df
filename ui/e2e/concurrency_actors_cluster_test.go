package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

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
		var shown *actions.Plan
		if rng.IntN(2) == 0 {
			if shown, err = exec.Plan(ctx, req); err == nil {
				res, err = exec.Send(ctx, shown)
			}
		} else {
			res, err = exec.Execute(ctx, req)
		}
		cancel()
		a.outcome, a.why = outcomeOf(res, err)
		if res != nil {
			a.token = res.Token
			a.rebound = shown != nil && res.Plan.ResourceVersion != shown.ResourceVersion
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
