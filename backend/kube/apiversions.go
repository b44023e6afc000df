package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/client-go/discovery"
)

// ServedAPIVersions is what a Helm render sees as .Capabilities.APIVersions
// on this cluster, as helm and the Argo CD controller list it: every served
// group/version, and each with every kind ("apps/v1/Deployment"). A
// discovery that fails for some groups still gives the others.
func ServedAPIVersions(disco discovery.DiscoveryInterface) ([]string, error) {
	_, lists, err := disco.ServerGroupsAndResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("reading the cluster's API versions: %w", err)
	}
	seen := map[string]bool{}
	for _, l := range lists {
		seen[l.GroupVersion] = true
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") { // subresources have no kind of their own
				seen[l.GroupVersion+"/"+r.Kind] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}
