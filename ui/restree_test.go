package ui

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
)

// checkoutTree is the tree the backend builds for checkout: a Deployment
// rolling out with a crash-looping Pod, a ConfigMap out of sync, and a
// running PreSync hook.
func checkoutTree() *restree.Tree {
	owner := func(uid string) map[string]any {
		return map[string]any{"ownerReferences": []any{map[string]any{"uid": uid, "controller": true}}}
	}
	meta := func(name, uid string, extra map[string]any) map[string]any {
		m := map[string]any{"namespace": "shop", "name": name, "uid": uid}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	app := map[string]any{"status": map[string]any{
		"resources": []any{
			map[string]any{"version": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "settings", "status": "OutOfSync"},
			map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "shop", "name": "api", "status": "OutOfSync"},
		},
		"operationState": map[string]any{"phase": "Running", "syncResult": map[string]any{"resources": []any{
			map[string]any{"group": "batch", "version": "v1", "kind": "Job", "namespace": "shop", "name": "migrate", "hookType": "PreSync", "hookPhase": "Running"},
		}}},
	}}
	live := []map[string]any{
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("api", "d1", nil),
			"spec": map[string]any{"replicas": int64(2)}, "status": map[string]any{"replicas": int64(2), "updatedReplicas": int64(2), "availableReplicas": int64(1)}},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("settings", "c1", nil)},
		{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta("api-7f9c", "rs1", owner("d1")),
			"spec": map[string]any{"replicas": int64(2)}, "status": map[string]any{"availableReplicas": int64(1)}},
		{"apiVersion": "v1", "kind": "Pod", "metadata": meta("api-7f9c-crash", "p1", owner("rs1")), "status": map[string]any{"phase": "Running",
			"containerStatuses": []any{map[string]any{"name": "api", "state": map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}}}}}},
		{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("migrate", "j1", nil)},
	}
	t := restree.Build(app, live, restree.LiveKinds())
	t.Destination = "prod-eu-1 (https://kubernetes.default.svc)"
	return t
}

// openCheckoutTree opens checkout's detail, then its resource tree.
func openCheckoutTree(t *testing.T) (*App, *fakeBackend, *resTreeScreen) {
	t.Helper()
	a, be := newTestApp(t, 120, 30)
	be.tree = checkoutTree()
	selectUnit(t, a, "checkout")
	press(a, "enter", "w")
	s, ok := a.top().(*resTreeScreen)
	if !ok {
		t.Fatalf("w on the detail screen must open the resource tree:\n%s", plain(a))
	}
	return a, be, s
}

// cursorTo moves the tree's cursor down to the row of kind/name.
func cursorTo(t *testing.T, a *App, s *resTreeScreen, kind, name string) {
	t.Helper()
	press(a, "g")
	for range 20 {
		if n := s.v.Selected(); n != nil && n.Kind == kind && n.Name == name {
			return
		}
		press(a, "j")
	}
	t.Fatalf("no row %s/%s:\n%s", kind, name, plain(a))
}

func TestResourceTreeShowsHealthReasonsAndMovesItsCursor(t *testing.T) {
	a, _, s := openCheckoutTree(t)
	text := plain(a)
	for _, want := range []string{"Resources of argocd/argocd/checkout", "1 Degraded", "operation Running",
		"└ ReplicaSet/api-7f9c", "Pod/api-7f9c-crash", `container "api": CrashLoopBackOff: back-off 5m0s`,
		"Hooks of the operation", "PreSync hook, Running"} {
		if !strings.Contains(text, want) {
			t.Errorf("the tree does not show %q:\n%s", want, text)
		}
	}
	if n := s.v.Selected(); n == nil || n.Kind != "ConfigMap" {
		t.Fatalf("the cursor starts on the first resource, got %+v", n)
	}
	press(a, "j", "j")
	if n := s.v.Selected(); n.Kind != "ReplicaSet" {
		t.Errorf("two rows down is the ReplicaSet, got %s", n.Kind)
	}
	if !strings.Contains(plain(a), "> [ ] └ ReplicaSet/api-7f9c") {
		t.Errorf("the cursor row is marked with >:\n%s", plain(a))
	}
	if _, ok := s.SelectedPod(); ok {
		t.Error("a ReplicaSet is not a Pod")
	}
	press(a, "j")
	if ref, ok := s.SelectedPod(); !ok || ref.Name != "api-7f9c-crash" {
		t.Errorf("the pod under the cursor is where logs open from: %v %v", ref, ok)
	}
	press(a, "G")
	if n := s.v.Selected(); n.Kind != "Job" {
		t.Errorf("G goes to the last row (the hook), got %s", n.Kind)
	}
	press(a, "esc")
	if !topIs[*detailScreen](a) {
		t.Error("esc goes back to the detail screen")
	}
}

func TestSyncOfMarkedResourcesWritesTheOptionsTickedInTheDialog(t *testing.T) {
	a, be, s := openCheckoutTree(t)
	cursorTo(t, a, s, "Pod", "api-7f9c-crash")
	press(a, "s")
	if topIs[*dialog](a) || !strings.Contains(flat(a), "not a resource of the Application") {
		t.Fatalf("a Pod alone cannot be synced, and the screen must say so:\n%s", plain(a))
	}
	cursorTo(t, a, s, "ConfigMap", "settings")
	press(a, "space") // marks it and moves down, onto the Deployment
	press(a, "space")
	if s.v.Marked() != 2 {
		t.Fatalf("%d marked, want 2", s.v.Marked())
	}
	press(a, "s")
	if !topIs[*dialog](a) {
		t.Fatalf("s with marks must open the sync dialog:\n%s", plain(a))
	}
	for _, want := range []string{"[ ] prune", "[ ] force", "[ ] apply out-of-sync only", "[ ] Argo CD dry run"} {
		if !strings.Contains(plain(a), want) {
			t.Errorf("the sync dialog does not offer %q:\n%s", want, plain(a))
		}
	}
	planned := be.plans
	typeText(a, "INC-7: roll api and its settings")
	press(a, "enter")          // reason done: the first option, prune
	press(a, "space")          // prune on
	press(a, "j", "j")         // to apply out-of-sync only
	press(a, "space")          // on
	press(a, "enter")          // to the buttons
	if be.plans != planned+3 { // the reason typed, then each tick
		t.Errorf("the reason and each tick plan again: %d plans after the reason and 2 ticks, want %d", be.plans, planned+3)
	}
	if !strings.Contains(plain(a), "[x] prune") || !strings.Contains(plain(a), "[x] apply out-of-sync only") || !strings.Contains(plain(a), "[ ] force") {
		t.Errorf("the boxes show what is ticked:\n%s", plain(a))
	}
	press(a, "y")
	if len(be.executed) != 1 {
		t.Fatalf("executed %d writes:\n%s", len(be.executed), plain(a))
	}
	req := be.executed[0]
	want := []actions.Resource{{Kind: "ConfigMap", Namespace: "shop", Name: "settings"}, {Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "api"}}
	if req.Kind != actions.Sync || !reflect.DeepEqual(req.Resources, want) || !req.Prune || !req.ApplyOutOfSyncOnly || req.Force || req.SyncDryRun {
		t.Errorf("the write is not what was ticked: %+v", req)
	}
	if len(be.sent) != 1 || be.sent[0].Request.Reason != "INC-7: roll api and its settings" {
		t.Errorf("the write must be bound to the plan shown, with the reason: %+v", req)
	}
}

func TestResourceDiffShowsOnlyTheSelectedResourceAndSyncsOnlyIt(t *testing.T) {
	a, be, s := openCheckoutTree(t)
	cm := func(name, v string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "shop", "name": name}, "data": map[string]any{"k": v}}
	}
	dep := func(image string) map[string]any {
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"namespace": "shop", "name": "api"},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "api", "image": image}}}}}}
	}
	report, err := diff.Objects([]diff.Pair{
		{Live: cm("settings", "old"), Desired: cm("settings", "new")},
		{Live: dep("api:1.4"), Desired: dep("api:1.5")},
	}, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	be.diff = &argodiff.Result{Report: report, Revision: "1111111", SyncRevision: "1111111111111111111111111111111111111111", Source: "Argo CD API"}
	cursorTo(t, a, s, "ReplicaSet", "api-7f9c")
	press(a, "d")
	if topIs[*diffScreen](a) || !strings.Contains(flat(a), "its owner's diff") {
		t.Fatalf("a ReplicaSet has no diff of its own, and the screen must say so:\n%s", plain(a))
	}
	cursorTo(t, a, s, "Deployment", "api")
	press(a, "d")
	ds, ok := a.top().(*diffScreen)
	if !ok {
		t.Fatalf("d must open the resource's diff:\n%s", plain(a))
	}
	if r := ds.v.Report(); len(r.Objects) != 1 || r.Objects[0].Key.Kind != "Deployment" || r.Modified != 1 {
		t.Fatalf("the diff must hold the Deployment only: %+v", r)
	}
	text := plain(a)
	if !strings.Contains(text, "api:1.5") || strings.Contains(text, "settings") {
		t.Errorf("the screen shows the Deployment's change and nothing of the ConfigMap:\n%s", text)
	}
	press(a, "s")
	d, ok := a.top().(*dialog)
	if !ok {
		t.Fatalf("s on a resource's diff must open its sync:\n%s", plain(a))
	}
	want := []actions.Resource{{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "api"}}
	if !reflect.DeepEqual(d.req.Resources, want) || d.req.Revision != be.diff.SyncRevision {
		t.Errorf("the sync must be of that resource, bound to the revision the diff was computed against: %+v", d.req)
	}
}

func TestGoldenResourceTree(t *testing.T) {
	a, _, s := openCheckoutTree(t)
	a.Update(teaSize(110, 24))
	cursorTo(t, a, s, "Pod", "api-7f9c-crash")
	press(a, "space")
	golden(t, "resource-tree-110x24", a)
}

func TestResourceTreeShowsClusterTextEscaped(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	tr := checkoutTree()
	tr.Find(restree.Ref{Kind: "Pod", Namespace: "shop", Name: "api-7f9c-crash"}).Reason = "pulled \x1b[2J\x1b]0;owned\x07 image"
	tr.Notes = []string{"note \x1b[31mred"}
	be.tree = tr
	selectUnit(t, a, "checkout")
	press(a, "enter", "w")
	raw := a.View().Content
	if strings.Contains(raw, "\x1b[2J") || strings.Contains(raw, "\x1b]0;") || strings.Contains(raw, "\x1b[31mred") {
		t.Fatal("escape sequences from the cluster reached the terminal")
	}
	if text := plain(a); !strings.Contains(text, `pulled \x1b[2J\x1b]0;owned\x07 image`) || !strings.Contains(text, `note \x1b[31mred`) {
		t.Errorf("the escaped text is shown:\n%s", text)
	}
}

// A tree that came from Argo CD's API server has no kube context: O reads
// the Pod's log through that API server, as the Application's.
func TestAPodLogFromATreeOfArgoCDsAPIServerIsReadThroughIt(t *testing.T) {
	a, be := newTestApp(t, 160, 30)
	src := &podAsked{}
	a.opts.Logs = src
	tr := checkoutTree()
	tr.Context, tr.Destination = "", "Argo CD's resource tree at https://argocd.example.com"
	be.tree = tr
	selectUnit(t, a, "checkout")
	press(a, "enter", "w")
	s, ok := a.top().(*resTreeScreen)
	if !ok {
		t.Fatalf("w on the detail screen must open the resource tree:\n%s", plain(a))
	}
	cursorTo(t, a, s, "Pod", "api-7f9c-crash")
	press(a, "O")
	want := logs.PodRef{Context: s.unitKey.Context, Namespace: "shop", Name: "api-7f9c-crash", App: s.unitKey}
	if !topIs[*logScreen](a) || src.asked != want {
		t.Errorf("O on a Pod of Argo CD's tree asked for %+v; want %+v\n%s", src.asked, want, plain(a))
	}
}

// podAsked is a log source that records the pod asked for and has none.
type podAsked struct{ asked logs.PodRef }

func (p *podAsked) Targets(context.Context, model.Key) ([]logs.Target, error) {
	return nil, logs.ErrNoPod
}
func (p *podAsked) Pod(_ context.Context, ref logs.PodRef) (logs.Target, error) {
	p.asked = ref
	return logs.Target{}, logs.ErrNoPod
}
func (p *podAsked) Stream(context.Context, logs.PodRef, logs.Options, func(logs.Line)) error {
	return logs.ErrNoPod
}

// A Kustomization's tree is its inventory: nothing to mark or sync one by
// one, and the footer offers neither.
func TestAKustomizationsTreeHasNoMarksOrSync(t *testing.T) {
	a, be := newFluxTestAppWith(t, 140, 30)
	ks := map[string]any{"metadata": map[string]any{"resourceVersion": "7"}, "status": map[string]any{"inventory": map[string]any{"entries": []any{
		map[string]any{"id": "team-web_web-frontend_apps_Deployment", "v": "v1"},
		map[string]any{"id": "team-web_web-frontend__Service", "v": "v1"},
	}}}}
	dep := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"namespace": "team-web", "name": "web-frontend", "uid": "d1", "generation": int64(2)},
		"status": map[string]any{"observedGeneration": int64(1)}}
	refs, versions, _ := restree.InventoryRefs(ks)
	be.tree = restree.BuildRecorded(refs, versions, []map[string]any{dep}, restree.LiveKinds())
	be.tree.ResourceVersion, be.tree.Recorded = "7", "status.inventory"
	selectUnit(t, a, "web-frontend")
	press(a, "enter", "w")
	if !topIs[*resTreeScreen](a) {
		t.Fatalf("w on a Kustomization's detail must open its tree:\n%s", plain(a))
	}
	got := plain(a)
	for _, want := range []string{"Deployment/web-frontend", "Service/web-frontend", "Progressing", "diff of it"} {
		if !strings.Contains(got, want) {
			t.Errorf("the tree lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[ ]") || strings.Contains(got, "sync marked") {
		t.Errorf("a Kustomization's tree offers marks or a sync of one resource:\n%s", got)
	}
	press(a, "s")
	if !strings.Contains(flat(a), "applies all of its objects at once") || topIs[*dialog](a) {
		t.Errorf("s must say a Kustomization applies as a whole:\n%s", plain(a))
	}
}
