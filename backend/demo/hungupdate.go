package demo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/sim"
)

// The hung update: data-lake's `pulumi up` has waited on the AWS Glue API
// for 31 minutes and its workspace pod has written nothing since. It hangs
// for as long as that pod lives; aborting it (terminate) deletes the pod,
// the update then fails as the operator's does when its agent dies, and
// the run requested after it succeeds.
const (
	stackHung     = "data-lake"
	hungFor       = 47 * time.Minute
	hungSilentFor = 31 * time.Minute
)

// hungUpdateName is the Update data-lake runs.
func (e *estate) hungUpdateName() string {
	return fmt.Sprintf("%s-%x", stackHung, e.now.Add(-hungFor).UnixMilli())
}

// hung: data-lake runs an update started hungFor ago, still Progressing.
func (e *estate) hung(obj map[string]any, d *stackDef) {
	since := e.now.Add(-hungFor)
	name := e.hungUpdateName()
	st := obj["status"].(map[string]any)
	gen := obj["metadata"].(map[string]any)["generation"]
	st["currentUpdate"] = map[string]any{"name": name, "generation": gen, "reconcileRequest": ""}
	st["conditions"] = []any{
		condition("Ready", "False", "NotReadyInProgress", "reconciliation is in progress", since),
		condition("Reconciling", "True", "StackProcessing", "stack is being processed", since),
	}
	e.add(pulumiop.Updates, e.updateObject(d, name, "up", "Resync", map[string]any{
		"observedGeneration": int64(1), "startTime": ts(since),
		"conditions": []any{
			condition("Progressing", "True", "Progressing", "", since),
			condition("Failed", "False", "Progressing", "", since),
			condition("Complete", "False", "Progressing", "", since),
		},
	}))
}

// hungOutcome is what the operator's run of data-lake's current update
// comes to: the update the demo began with (named, as the operator names
// them, for when it was made: before this run of the demo, also when its
// state was kept) hangs while the workspace pod that runs it lives.
func (e *estate) hungOutcome(current string, podAlive bool) sim.UpdateOutcome {
	hex := current[strings.LastIndex(current, "-")+1:]
	ms, err := strconv.ParseInt(hex, 16, 64)
	switch {
	case err != nil || time.UnixMilli(ms).After(e.now.Add(-time.Minute)):
		return sim.UpdateOutcome{}
	case podAlive:
		return sim.UpdateOutcome{Hang: true}
	}
	return sim.UpdateOutcome{FailWith: "error: the workspace pod running the update was deleted: the agent's connection closed (signal: killed)", FailReason: "Unknown"}
}

// hungLog is data-lake's workspace log: the update's start, then nothing
// for hungSilentFor.
func hungLog(stack string) podLog {
	return podLog{written: hungSilentFor, history: []string{
		"INFO agent serving on :50051 (workspace /share/workspace)",
		"INFO Updating (" + stack + ")",
		"",
		"    pulumi:pulumi:Stack data-lake-prod running",
		"    aws:s3:BucketV2 acme-data-lake-prod  ",
		"    aws:glue:CatalogDatabase lake_prod  ",
		"    aws:glue:Crawler lake-raw-crawler  updating (0s) [diff: ~schedule]",
	}}
}
