package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

// A hook that hangs again after every terminate and sync gets exactly
// maxAttempts terminates, though the agent restarts in between: the count
// is on the Application, where kubectl shows it. Only a sync that really
// succeeds starts the count again.
func TestClusterAHookThatHangsAfterEveryRemediationGetsExactlyMaxAttemptsAcrossARestart(t *testing.T) {
	w := newHookWorld(t)
	ctx := context.Background()
	var log bytes.Buffer
	agent := func() *Engine { e := w.engine(hookRule); e.Log = &log; return e }
	e := agent()
	terminates := func() int {
		n := 0
		for _, l := range w.auditLines() {
			if l.Action == "terminate" && l.Outcome == "done" {
				n++
			}
		}
		return n
	}
	for cycle := 1; cycle <= hookRule.MaxAttempts+2; cycle++ {
		if cycle == 2 {
			e = agent() // restarted (or another replica took the Lease): nothing in memory
		}
		e.Remediate(ctx, w.units())
		if w.phase() != "Terminating" {
			break
		}
		w.endOperation("Failed", "Operation terminated")
		e.Remediate(ctx, w.units()) // syncs again
		w.hangsAgain()
	}
	if n := terminates(); n != hookRule.MaxAttempts {
		t.Fatalf("the policy terminated the hanging operation %d times, want exactly maxAttempts %d", n, hookRule.MaxAttempts)
	}
	var recs map[string]record
	ann := w.object().GetAnnotations()[model.AnnotationRemediationAttempts]
	if err := json.Unmarshal([]byte(ann), &recs); err != nil || recs["unstick-hooks"].Attempts != 3 || recs["unstick-hooks"].Max != 3 {
		t.Errorf("annotation %s = %q (%v); want unstick-hooks with 3 attempts of 3", model.AnnotationRemediationAttempts, ann, err)
	}

	// Exhausted: passes of a new agent write nothing, and it is said once.
	e = agent()
	version := w.object().GetResourceVersion()
	for range 3 {
		e.Remediate(ctx, w.units())
	}
	if v := w.object().GetResourceVersion(); v != version {
		t.Errorf("an exhausted policy wrote to the Application (resourceVersion %s -> %s)", version, v)
	}
	if n := strings.Count(log.String(), "exhausted "); n != 2 || !strings.Contains(log.String(), "3 of 3 attempts made") {
		t.Errorf("the log says the maximum is reached %d times (want once per agent that met it):\n%s", n, log.String())
	}

	// A sync that succeeds ends the situation: the count is removed, and
	// the next hang gets its attempts again.
	w.endOperation("Succeeded", "successfully synced (all tasks run)")
	e.Remediate(ctx, w.units())
	if ann := w.object().GetAnnotations()[model.AnnotationRemediationAttempts]; ann != "" {
		t.Errorf("after a successful sync the annotation is %q, want removed", ann)
	}
	w.patch(`[{"op":"add","path":"/operation","value":{"initiatedBy":{"automated":true},"sync":{"revision":"` + sha + `"}}}]`)
	w.hangsAgain()
	e.Remediate(ctx, w.units())
	if w.phase() != "Terminating" || terminates() != hookRule.MaxAttempts+1 {
		t.Errorf("a new hang after a success was not remedied (phase %s, %d terminates)", w.phase(), terminates())
	}
}
