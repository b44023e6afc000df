package restree

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// LiveKind is a kind read from the destination.
type LiveKind struct {
	GVR  schema.GroupVersionResource
	Kind string
}

// LiveKindList are the kinds read from the destination: the workloads the
// tree shows and what they own.
var LiveKindList = []LiveKind{
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "Deployment"},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, "ReplicaSet"},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}, "StatefulSet"},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, "DaemonSet"},
	{schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}, "Job"},
	{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "Pod"},
	{schema.GroupVersionResource{Version: "v1", Resource: "services"}, "Service"},
	{schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, "Ingress"},
}

// Kinds is a set of kinds by group and kind.
type Kinds map[[2]string]bool

// LiveKinds are the kinds livetree.Reader lists on the destination: of these, a
// resource not found is Missing; of any other kind, its presence is not known.
func LiveKinds() Kinds { return KindsOf(LiveKindList) }

// KindsOf is the set of kinds of a list.
func KindsOf(list []LiveKind) Kinds {
	out := Kinds{}
	for _, k := range list {
		out[[2]string{k.GVR.Group, k.Kind}] = true
	}
	return out
}

// Find returns the node of a ref in the tree, hooks included.
func (t *Tree) Find(ref Ref) *Node {
	rows := t.Rows()
	i := slices.IndexFunc(rows, func(r Row) bool { return r.Node.Ref == ref })
	if i < 0 {
		return nil
	}
	return rows[i].Node
}
