package actions

import (
	"fmt"

	"github.com/driftdeck/driftdeck/backend/restree"
)

// SyncResources names the selected nodes of a resource tree as a sync's
// operation.sync.resources does. Argo CD syncs only what the Application
// manages: a selected object it does not manage (a ReplicaSet, a Pod) is
// refused by name.
func SyncResources(nodes []*restree.Node) ([]Resource, error) {
	var out []Resource
	for _, n := range nodes {
		if !n.Managed {
			return nil, fmt.Errorf("%s %s is not a resource of the Application (its owner is): select what owns it to sync it", n.Kind, n.Name)
		}
		out = append(out, Resource{Group: n.Group, Kind: n.Kind, Namespace: n.Namespace, Name: n.Name})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no resource selected")
	}
	return out, nil
}
