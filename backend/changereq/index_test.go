package changereq

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// A root module's open request, kept in a cluster's namespace, marks the
// module (in no context); a cluster unit of the same name is not marked.
func TestARootModulesRequestMarksTheModuleWhereverItIsKept(t *testing.T) {
	now := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	root := model.Key{Engine: model.EngineRoot, Namespace: "default", Name: "network"}
	x := NewIndex()
	x.Put("prod", &ChangeRequest{Namespace: "driftdeck-system", Name: "approve-default-network-x1", Created: now,
		Spec: Spec{Unit: RootUnit(root, "lineage-1"), Action: "approve", Requester: "alice", ApprovalsRequired: 1, ExpiresAt: now.Add(time.Hour)}})

	u := &model.Unit{Key: root}
	if !x.Classify(u, now) || u.Request == nil || u.Request.Ref != "driftdeck-system/approve-default-network-x1" || u.Request.Phase != string(Pending) {
		t.Fatalf("the module's mark: %+v", u.Request)
	}
	other := &model.Unit{Key: model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: "driftdeck-system", Name: "network"}}
	if x.Classify(other, now) || other.Request != nil {
		t.Fatalf("an Application named like the module is marked: %+v", other.Request)
	}
}
