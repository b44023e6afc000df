package livetree

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// InCluster is Argo CD's name and address for the cluster it runs in.
const (
	InClusterServer = "https://kubernetes.default.svc"
	InClusterName   = "in-cluster"
)

// Destinations maps an Application's destination (spec.destination.server
// or .name) to the kubeconfig context that reaches it, as the config file's
// destinations list says.
type Destinations struct {
	// ByServer and ByName map to context names.
	ByServer, ByName map[string]string
	// All sends every destination to the Application's own cluster: the
	// demo, whose one in-process cluster plays every destination.
	All bool
}

// Resolve finds the cluster holding an Application's live objects: the
// in-cluster destination is the cluster the Application was read from; a
// mapped destination is its context; a destination named like a connected
// context is that context. It returns nil and why when none reaches it.
func (d Destinations) Resolve(app map[string]any, own *kube.Cluster, clusters func(string) (*kube.Cluster, bool)) (c *kube.Cluster, where, why string) {
	dst := objread.New(app).At("spec", "destination")
	server, name := strings.TrimSuffix(dst.Str("server"), "/"), dst.Str("name")
	where = server
	if where == "" {
		where = name
	}
	if d.All || server == InClusterServer || name == InClusterName || (server == "" && name == "") {
		return own, own.Context + " (" + cmp.Or(where, InClusterServer) + ")", ""
	}
	ctx := d.ByServer[server]
	if ctx == "" {
		ctx = d.ByName[name]
	}
	if ctx == "" && name != "" {
		ctx = name
	}
	if ctx != "" {
		if c, ok := clusters(ctx); ok {
			return c, ctx + " (" + where + ")", ""
		}
	}
	return nil, where, fmt.Sprintf("the destination %s is not a connected context: live objects are not shown "+
		"(map it in the config file: destinations: [{server: %s, context: <kubeconfig context>}], and connect that context with --context)", where, cmp.Or(server, name))
}
