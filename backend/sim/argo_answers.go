package sim

import (
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/argocd"
)

// The answers below are what Argo CD's application controller writes back
// to a request, each in one JSON patch, for tests that play the controller
// at an exact moment (between a write and its read back, or at full rate
// beside driftdeck) rather than run Argo, which takes the steps in its own
// time.

// ArgoOperationFinished ends a requested operation at once: it tests that
// the operation is still op (a newer request is never taken for it),
// removes it and records it in status.operationState as Succeeded, started
// and finished at now, as the controller's setOperationState does.
func ArgoOperationFinished(op map[string]any, now time.Time) []map[string]any {
	at := timestamp(now)
	return []map[string]any{
		{"op": "test", "path": "/operation", "value": op},
		{"op": "remove", "path": "/operation"},
		{"op": "add", "path": "/status/operationState", "value": map[string]any{
			"phase": "Succeeded", "message": msgSucceeded, "operation": op, "startedAt": at, "finishedAt": at,
		}},
	}
}

// ArgoRefreshHandled removes a refresh annotation of the given level (tested
// first) and, unless reconciledAt is zero, records that time in
// status.reconciledAt, as the controller does once it compared the app
// again. Zero leaves reconciledAt to a caller that writes its own there.
func ArgoRefreshHandled(level string, reconciledAt time.Time) []map[string]any {
	path := "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(argocd.AnnotationRefresh)
	ops := []map[string]any{{"op": "test", "path": path, "value": level}, {"op": "remove", "path": path}}
	if !reconciledAt.IsZero() {
		ops = append(ops, map[string]any{"op": "add", "path": "/status/reconciledAt", "value": timestamp(reconciledAt)})
	}
	return ops
}

// ArgoOperationTerminated ends an operation that is Terminating (tested
// first) as the controller does once it stopped it: Failed, "Operation
// terminated", finished at now, the operation removed.
func ArgoOperationTerminated(now time.Time) []map[string]any {
	return []map[string]any{
		{"op": "test", "path": "/status/operationState/phase", "value": "Terminating"},
		{"op": "replace", "path": "/status/operationState/phase", "value": "Failed"},
		{"op": "add", "path": "/status/operationState/message", "value": msgTerminated},
		{"op": "add", "path": "/status/operationState/finishedAt", "value": timestamp(now)},
		{"op": "remove", "path": "/operation"},
	}
}
