package restree

import (
	"cmp"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/objread"
)

// InventoryRefs reads a Kustomization's status.inventory: the objects its
// last apply recorded, each entry's id "<namespace>_<name>_<group>_<kind>"
// (the namespace empty for a cluster-scoped object) and v its version.
// Kubernetes names hold no "_", so the id splits in four; an entry that
// does not is returned among bad, as it is.
func InventoryRefs(ks map[string]any) (refs []Ref, versions map[Ref]string, bad []string) {
	versions = map[Ref]string{}
	for _, e := range objread.New(ks).Objects("status", "inventory", "entries") {
		id := e.Str("id")
		parts := strings.Split(id, "_")
		if len(parts) != 4 || parts[1] == "" || parts[3] == "" {
			bad = append(bad, id)
			continue
		}
		r := Ref{Namespace: parts[0], Name: parts[1], Group: parts[2], Kind: parts[3]}
		refs = append(refs, r)
		versions[r] = e.Str("v")
	}
	return refs, versions, bad
}

// BuildRecorded makes the tree of the objects a unit recorded it applied
// (a Kustomization's inventory, a Helm release's manifest) with the live
// objects they own, each with its health; versions may be nil. The caller
// says where they were recorded.
func BuildRecorded(refs []Ref, versions map[Ref]string, live []map[string]any, read Kinds) *Tree {
	t := &Tree{LiveRead: read != nil}
	items := make([]liveItem, 0, len(live))
	for _, obj := range live {
		items = append(items, itemOf(obj))
	}
	b := newBuilder(items)
	for _, r := range refs {
		t.Roots = append(t.Roots, &Node{Ref: r, Version: versions[r], Managed: true, Health: absent(r, read)})
	}
	slices.SortFunc(t.Roots, func(x, y *Node) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	for _, n := range t.Roots {
		b.claim(n)
	}
	for _, n := range t.Roots {
		b.attach(n, 0)
	}
	if b.tooDeep {
		t.Notes = append(t.Notes, "owner references nested deeper than 8 levels are not shown")
	}
	return t
}
