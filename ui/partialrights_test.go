package ui

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// Partial rights read as a notice in the header, with the context live and
// the route to Argo CD named, never as an error.
func TestTheHeaderNamesWhatIsNotShownAndTheRouteWithoutAnError(t *testing.T) {
	a, _ := newTestApp(t, 200, 24)
	st := store.ContextStatus{Context: "prod-eu-1", Identity: "tenant@example.com", Connected: true, Synced: true, LastEvent: fixedNow,
		Route: "argocd via argocd.example.com as alice"}
	st.AddUnreadable(store.Unreadable{What: "Pulumi Stacks", Namespace: "team-a", Units: true, For: []model.Engine{model.EnginePulumi}})
	a.Update(BatchMsg(store.Batch{Status: []store.ContextStatus{st}}))
	header := strings.SplitN(plain(a), "\n", 2)[0]
	for _, want := range []string{"● live", "argocd via argocd.example.com as alice", "not shown: Pulumi Stacks in team-a: RBAC"} {
		if !strings.Contains(header, want) {
			t.Errorf("the header lacks %q:\n%s", want, header)
		}
	}
	if strings.Contains(header, "error") {
		t.Errorf("partial rights read as an error:\n%s", header)
	}
}
