package demo

import (
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// The ApplicationSet (storefront-services), the app of apps (platform-root)
// and the Kustomizations' dependsOn already make trees; trees gives the
// Stacks prerequisites, as the Pulumi operator's spec.prerequisites names
// them: production clusters after staging and the network, the edge after
// DNS, and a Stack with two prerequisites (shown under the first).
func (e *estate) trees() {
	prerequisites := map[string][]string{
		"k8s-prod":      {stackRunning},
		stackApproval:   {stackWedged},
		"observability": {"iam-baseline"},
		"data-lake":     {"iam-baseline", stackLocked},
	}
	for _, obj := range e.objects[pulumiop.Stacks] {
		names := prerequisites[obj.GetName()]
		if len(names) == 0 {
			continue
		}
		var refs []any
		for _, n := range names {
			refs = append(refs, map[string]any{"name": n, "requirement": map[string]any{"succeededWithinDuration": "24h"}})
		}
		obj.Object["spec"].(map[string]any)["prerequisites"] = refs
	}
}
