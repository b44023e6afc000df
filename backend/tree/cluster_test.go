package tree_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tree"
)

var appSetGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "ApplicationSet"}

// An ApplicationSet and the Applications it owns, with the owner reference
// the upstream ApplicationSet controller sets (controllerutil's controller
// reference: apiVersion, kind, name, uid, controller, blockOwnerDeletion),
// read by the real fleet from a real API server with each Argo CD
// generation's upstream CRDs: the Applications sit under the ApplicationSet,
// and a bulk sync of its children writes one operation on each child, none
// elsewhere.
func TestClusterApplicationSetIsATreeAndItsChildrenSyncInBulk(t *testing.T) {
	for _, set := range testcluster.RequireUpstreamCRDSetsServing(t, appSetGVK) {
		t.Run(set.Name, func(t *testing.T) {
			c := testcluster.Start(t, testcluster.Options{CRDSets: []testcluster.CRDSet{set}})
			ns := c.Namespace(t)
			kc, err := kube.NewCluster("test", c.Config(), ns)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			children := []string{"shop-cart", "shop-web", "shop-api"}
			appSet := create(t, kc, argocd.ApplicationSets, ns, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","metadata":{"name":"shop"},
				"spec":{"generators":[{"list":{"elements":[{"svc":"cart"},{"svc":"web"},{"svc":"api"}]}}],
				"template":{"metadata":{"name":"shop-{{svc}}"},"spec":{"project":"default","source":{"repoURL":"https://git.example.com/shop.git","path":"{{svc}}"},
				"destination":{"server":"https://kubernetes.default.svc","namespace":"shop"}}}},
				"status":{"conditions":[{"type":"ResourcesUpToDate","status":"True","reason":"ApplicationSetUpToDate","message":"All applications have been generated successfully","lastTransitionTime":"2026-11-29T10:00:00Z"}]}}`))
			owner := fmt.Sprintf(`[{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","name":"shop","uid":%q,"controller":true,"blockOwnerDeletion":true}]`, appSet.GetUID())
			for _, name := range append(slices.Clone(children), "standalone") {
				refs := owner
				if name == "standalone" {
					refs = "[]"
				}
				create(t, kc, argocd.Applications, ns, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":%q,"ownerReferences":%s},
					"spec":{"project":"default","source":{"repoURL":"https://git.example.com/shop.git","path":"x","targetRevision":"main"},
					"destination":{"server":"https://kubernetes.default.svc","namespace":"shop"}},
					"status":{"sync":{"status":"OutOfSync","revision":"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"},"health":{"status":"Healthy"}}}`, name, refs))
			}

			f := fleet.New(fleet.Options{})
			if err := f.Add(ctx, kc, ns); err != nil {
				t.Fatal(err)
			}
			if err := f.WaitSynced(ctx); err != nil {
				t.Fatal(err)
			}
			// The first list comes from the API server's watch cache, which
			// may not hold the newest creations yet; the watch brings them.
			var forest *tree.Forest
			testcluster.Eventually(t, 30*time.Second, "the ApplicationSet and its four Applications in the model", func() bool {
				forest = tree.Build(f.Store.Snapshot())
				_, standalone := forest.Node(model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: ns, Name: "standalone"})
				parent, ok := forest.Node(model.Key{Context: "test", Engine: model.EngineApplicationSet, Namespace: ns, Name: "shop"})
				return standalone && ok && len(parent.ChildUnits()) == len(children)
			})
			parent, ok := forest.Node(model.Key{Context: "test", Engine: model.EngineApplicationSet, Namespace: ns, Name: "shop"})
			if !ok || parent.Parent != nil {
				t.Fatalf("the ApplicationSet is not a root of the tree: %v", ok)
			}
			var got []string
			for _, u := range parent.ChildUnits() {
				got = append(got, u.Key.Name)
			}
			if want := []string{"shop-api", "shop-cart", "shop-web"}; !slices.Equal(got, want) {
				t.Fatalf("children of the ApplicationSet %v, want %v", got, want)
			}
			if s := parent.Summary.String(); s != "3 below: 3 awaiting" {
				t.Errorf("summary %q", s)
			}
			if alone, _ := forest.Node(model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: ns, Name: "standalone"}); alone.Parent != nil {
				t.Errorf("an Application no ApplicationSet owns sits under %v", alone.Parent.Unit.Key)
			}

			auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
			log, err := audit.Open(auditPath)
			if err != nil {
				t.Fatal(err)
			}
			exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: log}
			var keys []model.Key
			for _, u := range parent.ChildUnits() {
				keys = append(keys, u.Key)
			}
			for _, o := range exec.Bulk(ctx, actions.BulkRequest{Kind: actions.Sync, Keys: keys, Reason: "roll the shop"}) {
				if o.Outcome != actions.OutcomeApplied {
					t.Errorf("%s: %s %s", o.Key.Ref(), o.Outcome, o.Why)
				}
			}
			for _, name := range append(children, "standalone") {
				app, err := kc.Dynamic.Resource(argocd.Applications).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				op, has, _ := unstructured.NestedMap(app.Object, "operation")
				if name == "standalone" {
					if has {
						t.Errorf("the Application outside the ApplicationSet got an operation: %v", op)
					}
					continue
				}
				user, _, _ := unstructured.NestedString(op, "initiatedBy", "username")
				info, _, _ := unstructured.NestedSlice(op, "info")
				if _, sync := op["sync"]; !has || !sync || user == "" || len(info) != 1 {
					t.Errorf("%s: operation %v, want one sync operation with its initiator and reason", name, op)
				}
			}
			// One write per child, each audited once.
			data, err := os.ReadFile(auditPath)
			if err != nil {
				t.Fatal(err)
			}
			var written []string
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var e audit.Entry
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("audit line %q: %v", line, err)
				}
				if e.Action != "sync" || e.Outcome != "done" {
					t.Errorf("audit: %s %s of %s", e.Action, e.Outcome, e.Unit)
				}
				written = append(written, e.Unit)
			}
			slices.Sort(written)
			if want := []string{"argocd/" + ns + "/shop-api", "argocd/" + ns + "/shop-cart", "argocd/" + ns + "/shop-web"}; !slices.Equal(written, want) {
				t.Errorf("writes %v, want one sync of each child %v", written, want)
			}
			if appSet, err = kc.Dynamic.Resource(argocd.ApplicationSets).Namespace(ns).Get(ctx, "shop", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			} else if _, has := appSet.Object["operation"]; has {
				t.Error("the ApplicationSet itself was written")
			}
		})
	}
}

// create makes an object and writes its status through the status
// subresource when the resource has one.
func create(t *testing.T, kc *kube.Cluster, gvr schema.GroupVersionResource, ns, text string) *unstructured.Unstructured {
	t.Helper()
	o := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(text), &o.Object); err != nil {
		t.Fatalf("bad object: %v\n%s", err, text)
	}
	o.SetNamespace(ns)
	status, hasStatus := o.Object["status"]
	out, err := kc.Dynamic.Resource(gvr).Namespace(ns).Create(context.Background(), o, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s: %v", o.GetName(), err)
	}
	if hasStatus && gvr == argocd.ApplicationSets {
		out.Object["status"] = status
		if out, err = kc.Dynamic.Resource(gvr).Namespace(ns).UpdateStatus(context.Background(), out, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("status of %s: %v", o.GetName(), err)
		}
	}
	return out
}
