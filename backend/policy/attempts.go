package policy

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// record is one policy's count on a unit, as the unit's
// driftdeck.io/remediation-attempts annotation holds it (JSON by policy
// name): kubectl get -o yaml shows why remediation stopped.
type record struct {
	Attempts int       `json:"attempts"`
	Max      int       `json:"max"`
	Last     time.Time `json:"last"`
}

// records reads the unit's annotation; one a person broke is an error,
// and the policy then holds back rather than guess a count.
func records(u *model.Unit) (map[string]record, error) {
	out := map[string]record{}
	if u.Remediations == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(u.Remediations), &out); err != nil {
		return nil, fmt.Errorf("annotation %s is not what driftdeck writes (%v): remove it to let the policies act again", model.AnnotationRemediationAttempts, err)
	}
	return out, nil
}

// recordUpdate is the annotation change that sets the rule's entry to rec
// (nil: removes it), bound to the value read.
func recordUpdate(u *model.Unit, all map[string]record, rule string, rec *record) map[string]actions.AnnotationUpdate {
	next := map[string]record{}
	for name, r := range all {
		next[name] = r
	}
	if rec == nil {
		delete(next, rule)
	} else {
		next[rule] = *rec
	}
	now := ""
	if len(next) > 0 {
		b, _ := json.Marshal(next) // keys sorted: the same counts, the same text
		now = string(b)
	}
	return map[string]actions.AnnotationUpdate{model.AnnotationRemediationAttempts: {Was: u.Remediations, Now: now}}
}

// healthy tells whether the unit's situation is really over for the rule:
// a run that succeeded, not merely one that is no longer stuck this instant.
// Only then does the rule's count start again.
func healthy(r Rule, u *model.Unit) bool {
	switch r.When {
	case StackDeadLock, UpdateProgressing:
		return u.Stack != nil && u.Run == model.Idle && !u.Queued && u.Stack.LastState == "succeeded"
	case ArgoHookStuck:
		return u.Argo != nil && !u.Argo.OperationSet && u.Argo.Phase == "Succeeded"
	}
	return false
}
