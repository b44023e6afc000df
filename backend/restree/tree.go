package restree

import (
	"cmp"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/objread"
)

// Ref names a resource as Argo CD does: group (empty for core), kind,
// namespace (empty for cluster-scoped kinds), name.
type Ref struct{ Group, Kind, Namespace, Name string }

// String renders the ref as the command line's --resource takes it:
// group/kind/namespace/name, and kind/namespace/name for a core kind, which
// has no group (as kubectl names them: ConfigMap, not /ConfigMap).
func (r Ref) String() string {
	s := r.Kind + "/" + r.Namespace + "/" + r.Name
	if r.Group == "" {
		return s
	}
	return r.Group + "/" + s
}

// Node is one resource of the tree.
type Node struct {
	Ref
	Version string
	UID     string
	// Health is empty for a kind that has none (a ConfigMap, a Secret).
	Health Health
	// Reason is why the resource is not healthy (or what it is waiting
	// for), in the controller's or Argo CD's words; text from the cluster.
	Reason string
	// Sync is Synced or OutOfSync for what the Application manages; empty
	// for objects its resources own (ReplicaSets, Pods).
	Sync    string
	Managed bool
	// Hook is the hook type (PreSync, Sync, PostSync, SyncFail, PostDelete)
	// of a hook resource, HookPhase its phase in the operation.
	Hook, HookPhase string
	// Live: the live object was read from the destination.
	Live     bool
	Children []*Node
}

// Tree is an Application's resources with what they own, and the hooks of
// its current or last operation.
type Tree struct {
	Roots []*Node
	Hooks []*Node
	// Operation is the phase of the current or last operation ("" if none).
	Operation string
	// Destination names the cluster the live objects were read from (or
	// would have been).
	Destination string
	// Context is the kubeconfig context the live objects were read in; ""
	// when none was read (their pods' logs open there).
	Context string
	// LiveRead: live objects were read; false, the tree is what
	// status.resources says, and Notes say why.
	LiveRead bool
	// Notes say what the tree may lack: an unreachable destination, a
	// kind not readable, a list cut at the limit, owners nested too deep.
	Notes []string
	// ResourceVersion is the Application's, as read.
	ResourceVersion string
	// Recorded names where the tree's resources are listed:
	// status.resources (an Application), status.inventory (a Kustomization).
	Recorded string
	// PerResource: each resource has a sync state and can be synced alone
	// (an Application's); a Kustomization applies as a whole.
	PerResource bool
}

// maxDepth bounds how deep ownerReferences are followed below a managed
// resource: Deployment -> ReplicaSet -> Pod is 2; anything past 8 is not a
// real owner chain.
const maxDepth = 8

// Build makes the tree of an Application from the object as read and the
// live objects found on its destination, of the kinds read (nil: none could
// be read). Owners are followed by uid; an object is placed once, so owner
// cycles and objects owned twice end where they are first met.
func Build(app map[string]any, live []map[string]any, read Kinds) *Tree {
	items := make([]liveItem, 0, len(live))
	for _, obj := range live {
		items = append(items, itemOf(obj))
	}
	return build(app, items, read)
}

// BuildFromArgo makes the tree of an Application from the object as read
// and the nodes of the resource tree Argo CD's API server keeps of it
// (GET .../resource-tree): what its controller sees live, on whichever
// cluster, with the health it computed.
func BuildFromArgo(app map[string]any, nodes []map[string]any) *Tree {
	items := make([]liveItem, 0, len(nodes))
	for _, node := range nodes {
		r := objread.New(node)
		it := liveItem{ref: refOf(r), uid: r.Str("uid"), version: r.Str("version"),
			health: Health(r.Str("health", "status")), reason: r.Str("health", "message")}
		it.known = it.health != ""
		if parents := r.Objects("parentRefs"); len(parents) > 0 {
			it.owner = parents[0].Str("uid")
		}
		items = append(items, it)
	}
	return build(app, items, LiveKinds())
}

func build(app map[string]any, live []liveItem, read Kinds) *Tree {
	a := objread.New(app)
	t := &Tree{LiveRead: read != nil, ResourceVersion: a.Str("metadata", "resourceVersion"), Operation: a.Str("status", "operationState", "phase"), Recorded: "status.resources", PerResource: true}
	b := newBuilder(live)
	hooks := map[Ref]*Node{}
	for _, res := range a.Objects("status", "resources") {
		n := managedNode(res, read)
		if hook, _ := res.Bool("hook"); hook {
			hooks[n.Ref] = n
			continue
		}
		t.Roots = append(t.Roots, n)
	}
	for _, res := range a.Objects("status", "operationState", "syncResult", "resources") {
		typ := res.Str("hookType")
		if typ == "" {
			continue
		}
		ref := refOf(res)
		n := hooks[ref]
		if n == nil {
			n = &Node{Ref: ref, Version: res.Str("version"), Health: absent(ref, read)}
			hooks[ref] = n
		}
		n.Hook, n.HookPhase = typ, res.Str("hookPhase")
		if msg := res.Str("message"); msg != "" && n.Reason == "" {
			n.Reason = msg
		}
	}
	for _, n := range t.Roots {
		b.claim(n)
	}
	for _, n := range hooks {
		b.claim(n)
	}
	for _, n := range t.Roots {
		b.attach(n, 0)
	}
	for _, n := range hooks {
		b.attach(n, 0)
		t.Hooks = append(t.Hooks, n)
	}
	slices.SortFunc(t.Hooks, func(x, y *Node) int {
		return cmp.Or(cmp.Compare(hookOrder(x.Hook), hookOrder(y.Hook)), cmp.Compare(x.Name, y.Name))
	})
	if b.tooDeep {
		t.Notes = append(t.Notes, "owner references nested deeper than 8 levels are not shown")
	}
	return t
}

func refOf(r *objread.Reader) Ref {
	return Ref{Group: r.Str("group"), Kind: r.Str("kind"), Namespace: r.Str("namespace"), Name: r.Str("name")}
}

// managedNode is a status.resources entry: its sync state, and the health
// Argo CD recorded there (2.x; 3.x keeps health in the app tree instead).
func managedNode(res *objread.Reader, read Kinds) *Node {
	n := &Node{Ref: refOf(res), Version: res.Str("version"), Sync: res.Str("status"), Managed: true}
	n.Health = Health(res.Str("health", "status"))
	n.Reason = res.Str("health", "message")
	if n.Health == "" {
		n.Health = absent(n.Ref, read)
	}
	return n
}

// absent is the health of a resource whose live object is not (yet) found:
// Missing when its kind was read; Unknown when nothing was read; none for
// a kind not read (a ConfigMap, a Role: Argo CD shows no health for them).
func absent(ref Ref, read Kinds) Health {
	switch {
	case read == nil:
		return Unknown
	case read[[2]string{ref.Group, ref.Kind}]:
		return Missing
	}
	return ""
}

func hookOrder(h string) int {
	for i, k := range []string{"PreSync", "Sync", "PostSync", "SyncFail", "PostDelete"} {
		if k == h {
			return i
		}
	}
	return 9
}

// liveItem is a live object as the tree needs it.
type liveItem struct {
	ref     Ref
	uid     string
	owner   string // the uid of its controller (else first) owner
	version string
	health  Health
	reason  string
	known   bool // the health is known
}

func itemOf(obj map[string]any) liveItem {
	r := objread.New(obj)
	it := liveItem{ref: liveRef(r), uid: r.Str("metadata", "uid"), owner: ownerUID(r), version: versionOf(r.Str("apiVersion"))}
	it.health, it.reason, it.known = HealthOf(obj)
	return it
}

// builder indexes the live objects by ref and by owner.
type builder struct {
	byRef   map[Ref]liveItem
	owned   map[string][]liveItem // owner uid -> objects
	placed  map[string]bool       // uids already in the tree
	tooDeep bool
}

func newBuilder(live []liveItem) *builder {
	b := &builder{byRef: map[Ref]liveItem{}, owned: map[string][]liveItem{}, placed: map[string]bool{}}
	for _, it := range live {
		b.byRef[it.ref] = it
		if it.owner != "" && it.owner != it.uid {
			b.owned[it.owner] = append(b.owned[it.owner], it)
		}
	}
	return b
}

func liveRef(r *objread.Reader) Ref {
	group, _, found := strings.Cut(r.Str("apiVersion"), "/")
	if !found {
		group = ""
	}
	return Ref{Group: group, Kind: r.Str("kind"), Namespace: r.Str("metadata", "namespace"), Name: r.Str("metadata", "name")}
}

// ownerUID is the controller among the owners, else the first owner.
func ownerUID(r *objread.Reader) string {
	owners := r.Objects("metadata", "ownerReferences")
	for _, o := range owners {
		if c, _ := o.Bool("controller"); c {
			return o.Str("uid")
		}
	}
	if len(owners) > 0 {
		return owners[0].Str("uid")
	}
	return ""
}

// claim fills a managed or hook node from its live object and marks it
// placed, so that no owner nests it a second time.
func (b *builder) claim(n *Node) {
	it, ok := b.byRef[n.Ref]
	if !ok {
		return
	}
	n.Live, n.UID = true, it.uid
	b.placed[n.UID] = true
	if it.known {
		n.Health = it.health
		// A hook's message from the operation stays when the live object
		// gives no reason of its own.
		if it.reason != "" || it.health == Healthy {
			n.Reason = it.reason
		}
	}
}

// attach hangs under n the live objects it owns, depth first, each once.
func (b *builder) attach(n *Node, depth int) {
	if n.UID == "" {
		return
	}
	kids := b.owned[n.UID]
	if len(kids) > 0 && depth >= maxDepth {
		b.tooDeep = true
		return
	}
	for _, it := range kids {
		if it.uid == "" || b.placed[it.uid] {
			continue
		}
		b.placed[it.uid] = true
		c := &Node{Ref: it.ref, UID: it.uid, Live: true, Version: it.version}
		if it.known {
			c.Health, c.Reason = it.health, it.reason
		}
		n.Children = append(n.Children, c)
	}
	slices.SortFunc(n.Children, func(x, y *Node) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	for _, c := range n.Children {
		b.attach(c, depth+1)
	}
}

func versionOf(apiVersion string) string {
	if _, v, found := strings.Cut(apiVersion, "/"); found {
		return v
	}
	return apiVersion
}

// Row is one line of the tree as shown: a node and how deep it sits.
type Row struct {
	Node  *Node
	Depth int
	// Hook: the row is in the hooks part of the tree.
	Hook bool
}

// Rows lists the tree depth first: the managed resources with what they
// own, then the hooks with their Jobs' pods.
func (t *Tree) Rows() []Row {
	var out []Row
	var walk func(n *Node, depth int, hook bool)
	walk = func(n *Node, depth int, hook bool) {
		out = append(out, Row{Node: n, Depth: depth, Hook: hook})
		for _, c := range n.Children {
			walk(c, depth+1, hook)
		}
	}
	for _, n := range t.Roots {
		walk(n, 0, false)
	}
	for _, n := range t.Hooks {
		walk(n, 0, true)
	}
	return out
}

// Counts is how many resources of the tree are in each health.
func (t *Tree) Counts() map[Health]int {
	out := map[Health]int{}
	for _, r := range t.Rows() {
		if r.Node.Health != "" {
			out[r.Node.Health]++
		}
	}
	return out
}

// Summary renders the counts, worst first: "1 Degraded, 2 Progressing, 7 Healthy".
func (t *Tree) Summary() string {
	c := t.Counts()
	hs := make([]Health, 0, len(c))
	for h := range c {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(x, y Health) int { return cmp.Compare(x.rank(), y.rank()) })
	var parts []string
	for _, h := range hs {
		parts = append(parts, itoa(c[h])+" "+string(h))
	}
	return strings.Join(parts, ", ")
}
