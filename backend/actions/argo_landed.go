package actions

import (
	"fmt"
	"reflect"
	"time"

	"github.com/driftdeck/driftdeck/backend/argocd"
)

// Argo CD's application controller consumes what driftdeck writes within
// moments: it moves a requested operation into status.operationState
// (removing it once done) and removes a refresh annotation once it has
// compared the app again. A write whose answer was lost is judged by these
// traces as well as by the write itself (ADR 0017).

// operationLanded judges a requested operation (a sync or a rollback) read
// back: before is the object the plan was made from, op the operation
// written at the plan's time at.
func operationLanded(before, op map[string]any, at time.Time) func(map[string]any) (landing, string) {
	prior, _ := lookup(before, "status", "operationState")
	return func(after map[string]any) (landing, string) {
		if got, ok := after["operation"]; ok && includesJSON(got, op) {
			return landed, "it holds the operation"
		}
		state, _ := lookup(after, "status", "operationState")
		ours := false
		if m, ok := state.(map[string]any); ok {
			started, err := time.Parse(time.RFC3339, lookupString(after, "status", "operationState", "startedAt"))
			ours = includesJSON(m["operation"], op) && err == nil && !started.Before(at.Truncate(time.Second))
		}
		phase := lookupString(after, "status", "operationState", "phase")
		switch {
		case reflect.DeepEqual(prior, state) && ours:
			// An operation just like this one, started in the same second,
			// was there already: nothing tells them apart.
			return landingUnknown, "status.operationState records an operation like this one, started before the write"
		case reflect.DeepEqual(prior, state):
			return notLanded, "it holds no operation, and status.operationState is as before the write"
		case ours:
			return landed, fmt.Sprintf("the controller has taken the operation up (status.operationState: %s, started at %s)",
				orWord(phase, "no phase"), lookupString(after, "status", "operationState", "startedAt"))
		}
		by := lookupString(after, "operation", "initiatedBy", "username")
		if by == "" {
			by = lookupString(after, "status", "operationState", "operation", "initiatedBy", "username")
		}
		return landingUnknown, "another operation (initiated by " + orWord(by, "the controller") + ") has come since: whether this one ran before it cannot be read"
	}
}

// refreshLanded judges a refresh of the given level read back. The
// controller removes the annotation once it has compared the app, and
// records status.reconciledAt: a comparison recorded after the plan was
// read is the normal refresh asked for. A hard refresh leaves no trace of
// its own, and the controller also compares on its own: the annotation gone
// and a newer comparison cannot tell a hard refresh from a normal one.
func refreshLanded(before map[string]any, level string, at time.Time) func(map[string]any) (landing, string) {
	was := lookupString(before, "status", "reconciledAt")
	return func(after map[string]any) (landing, string) {
		pending, ok := annotationsOf(after)[argocd.AnnotationRefresh]
		switch {
		case ok && pending == level:
			return landed, "it holds the refresh request"
		case ok:
			return landingUnknown, "another writer has requested a " + pending + " refresh since"
		}
		now := lookupString(after, "status", "reconciledAt")
		compared, err := time.Parse(time.RFC3339, now)
		switch {
		case now == was:
			return notLanded, "it holds no refresh request, and it has not been compared since (status.reconciledAt " + orWord(now, "unset") + ")"
		case err != nil || compared.Before(at.Truncate(time.Second)):
			return landingUnknown, "it holds no refresh request, and status.reconciledAt (" + now + ") moved to a time before the write"
		case level == "hard":
			return landingUnknown, "the controller has compared it since (status.reconciledAt " + now + "), but whether as the hard refresh asked for, nothing on it says"
		}
		return landed, "the controller has compared it again since (status.reconciledAt " + now + ") and removed the request"
	}
}

// terminatedMessage is what the controller records of an operation it
// stopped on request (gitops-engine's sync context).
const terminatedMessage = "Operation terminated"

// terminateLanded judges a terminate read back: the controller turns
// Terminating into Failed, "Operation terminated", and never writes a
// Terminating operation back to Running.
func terminateLanded(before map[string]any) func(map[string]any) (landing, string) {
	started := lookupString(before, "status", "operationState", "startedAt")
	return func(after map[string]any) (landing, string) {
		phase := lookupString(after, "status", "operationState", "phase")
		same := lookupString(after, "status", "operationState", "startedAt") == started
		switch {
		case same && phase == "Terminating":
			return landed, "the operation is Terminating"
		case same && phase == "Failed" && lookupString(after, "status", "operationState", "message") == terminatedMessage:
			return landed, "the controller has terminated the operation (status.operationState: Failed, " + terminatedMessage + ")"
		case same && phase == "Running":
			return notLanded, "the operation is still Running"
		case same:
			return landingUnknown, "the operation has ended on its own (" + orWord(phase, "no phase") + "): whether the terminate reached it first cannot be read"
		}
		return landingUnknown, "another operation has started since: whether the terminate reached the one before cannot be read"
	}
}
