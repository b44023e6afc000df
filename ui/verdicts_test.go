package ui

import (
	"context"
	"errors"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/model"
)

// agentKinds are the actions the agent takes on its own: ending an expired
// pause, and the remedies of its policies.
var agentKinds = map[actions.Kind]bool{actions.Resume: true, actions.Retry: true, actions.Terminate: true, actions.Sync: true}

// TestOneVerdictPerActionInTheTUITheCLIAndTheAgent walks every unit of the
// demo and every action of its engine: what the TUI offers (its menu's
// availability), what a CLI command for that unit does (the request it
// sends, in dry run) and what the agent's request does must agree on
// possible or not (a planner may word a refusal more fully).
func TestOneVerdictPerActionInTheTUITheCLIAndTheAgent(t *testing.T) {
	a, be, units := demoApp(t, 120, 40)
	ctx := context.Background()
	checked := 0
	for _, u := range units {
		settle(t, a, a.availCmd(u, nil, nil))
		var differ []string
		for _, kind := range actions.KindsFor(u.Key.Engine) {
			if kind == actions.Unlock {
				continue // a state-backend write (stackops), checked by its own tests
			}
			tui, ok := a.availabilityOf(u.Key, kind)
			if !ok {
				t.Errorf("%s %s: the TUI has no verdict", kind, u.Key.Ref())
				continue
			}
			says := verdictWords(tui.Enabled, tui.WhyNot)
			if why := verdictOf(be.exec.Execute(ctx, cliRequest(u, kind))); (why == "") != tui.Enabled {
				differ = append(differ, fmt.Sprintf("%s %s: the TUI says %s, the CLI %s", kind, u.Key.Ref(), says, verdictWords(why == "", why)))
			}
			if agentKinds[kind] && (kind != actions.Resume || u.Pause != nil) {
				agent := actions.Request{Kind: kind, Key: u.Key, Reason: "agent: verdict test"}
				if why := verdictOf(be.exec.Execute(ctx, agent)); (why == "") != tui.Enabled {
					differ = append(differ, fmt.Sprintf("%s %s: the TUI says %s, the agent %s", kind, u.Key.Ref(), says, verdictWords(why == "", why)))
				}
			}
		}
		if moved(t, be.exec, u) {
			// The demo's controller changed the unit meanwhile (a self-heal
			// sync): the verdicts compared two states of it.
			t.Logf("%s changed while its verdicts were compared; not counted", u.Key.Ref())
			continue
		}
		for _, d := range differ {
			t.Error(d)
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d units compared: the demo lost its units, or kept changing them", checked)
	}
}

// cliRequest is the request the CLI's command for kind sends for u, with
// the arguments a user must give (a history id, the policy to enable).
func cliRequest(u *model.Unit, kind actions.Kind) actions.Request {
	req := actions.Request{Kind: kind, Key: u.Key, Reason: "verdict test", Single: true}
	switch {
	case kind == actions.Rollback && len(u.Argo.HistoryIDs) > 0:
		req.HistoryID = u.Argo.HistoryIDs[0]
	case kind == actions.Resume && u.Argo != nil && u.Pause == nil:
		req.AutoSync = &actions.AutoSyncPolicy{}
	}
	return req
}

// verdictOf is "" for an action that would be done (or holds already),
// else why not.
func verdictOf(_ *actions.Result, err error) string {
	var r *actions.Refusal
	switch {
	case err == nil, errors.As(err, &r) && r.Satisfied:
		return ""
	case r != nil:
		return r.Reason
	}
	return err.Error()
}

func verdictWords(possible bool, why string) string {
	if possible {
		return "possible"
	}
	return fmt.Sprintf("not possible (%s)", why)
}

// moved says whether u's object is no longer at the version the TUI's
// verdict was made from.
func moved(t *testing.T, exec *actions.Executor, u *model.Unit) bool {
	c, _ := exec.Cluster(u.Key.Context)
	gvr, _ := engines.Resource(u.Key.Engine)
	obj, err := c.Dynamic.Resource(gvr).Namespace(u.Key.Namespace).Get(context.Background(), u.Key.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return obj.GetResourceVersion() != u.ResourceVersion
}
