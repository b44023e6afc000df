package realcontrollers

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// argoUser makes a local Argo CD account of the real server that may get
// project default, its Applications and ApplicationSets, and nothing else,
// logged in.
func argoUser(t *testing.T, e *env, name, password string) *testargocd.Server {
	t.Helper()
	srv, err := e.argo.StartServer()
	if err != nil {
		t.Fatalf("argocd-server: %v", err)
	}
	if err := srv.AddAccount(e.argo, name, password); err != nil {
		t.Fatal(err)
	}
	policy := "p, role:team, applications, get, default/*, allow\np, role:team, applicationsets, get, default/*, allow\n" +
		"p, role:team, projects, get, default, allow\ng, " + name + ", role:team\n"
	if err := srv.SetPolicy(e.argo, policy); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Token(name, password); err != nil { // the server knows the account
		t.Fatalf("%v\nserver log:\n%s", err, e.argo.Log("server"))
	}
	return srv
}

// apiFleet is driftdeck's live model as a user whose kube identity may
// read nothing, reaching Argo CD through srv with token; it returns once
// the first lists are in.
func apiFleet(t *testing.T, srv *testargocd.Server, token, kubeUser string) *fleet.Fleet {
	t.Helper()
	kc, err := kube.NewCluster("test", testcluster.Shared(t).UserConfig(t, kubeUser, nil, ""), "default")
	if err != nil {
		t.Fatal(err)
	}
	client, err := argoapi.New(argodiff.NewServerConfig("http://"+srv.Addr, token))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	f := fleet.New(fleet.Options{Argo: []*fleet.ArgoRoute{{Client: client, Context: "test"}}})
	if err := f.Add(ctx, kc); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitSynced(ctx); err != nil {
		t.Fatalf("the first lists: %v", err)
	}
	f.Store.Tick()
	return f
}

// An Argo CD user whose kube identity may read nothing at all sees, through
// the real argocd-server, the Applications Argo CD's RBAC lets it get, with
// their states, live (created and deleted ones follow), and the route and
// the user are named; the Applications of a project it may not get are not
// there.
func TestClusterAnArgoCDUserWithoutKubernetesRightsSeesItsApplicationsThroughTheAPIServer(t *testing.T) {
	e := realArgo(t)
	const password = "alice-password-5b1e"
	srv := argoUser(t, e, "alice", password)
	token, err := srv.Token("alice", password)
	if err != nil {
		t.Fatal(err)
	}
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{"alice-web/cm.yaml": testargocd.ConfigMap("alice-web", "v1")})
	e.app("alice-web", repo, map[string]any{})
	e.app("alice-gone", repo, map[string]any{})
	hidden := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "not-alices", "namespace": testargocd.Namespace},
		"spec": map[string]any{"project": "restricted", "source": map[string]any{"repoURL": repo.URL(), "path": "alice-web"},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": e.dest}},
	}}
	apps := e.dyn.Resource(argocd.Applications).Namespace(testargocd.Namespace)
	if _, err := apps.Create(context.Background(), hidden, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = apps.Delete(context.Background(), "not-alices", metav1.DeleteOptions{}) })

	// An ApplicationSet of project default, and a sync window of it: the
	// API server has no feed of either, driftdeck lists them.
	set := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
		"metadata": map[string]any{"name": "alice-set", "namespace": testargocd.Namespace},
		"spec": map[string]any{"generators": []any{map[string]any{"list": map[string]any{"elements": []any{}}}},
			"template": map[string]any{"metadata": map[string]any{"name": "{{name}}"}, "spec": map[string]any{"project": "default",
				"source": map[string]any{"repoURL": repo.URL(), "path": "alice-web"}, "destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": e.dest}}}},
	}}
	sets := e.dyn.Resource(argocd.ApplicationSets).Namespace(testargocd.Namespace)
	if _, err := sets.Create(context.Background(), set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sets.Delete(context.Background(), "alice-set", metav1.DeleteOptions{}) })
	projects := e.dyn.Resource(argocd.AppProjects).Namespace(testargocd.Namespace)
	windows := func(patch string) {
		if _, err := projects.Patch(context.Background(), "default", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	windows(`{"spec":{"syncWindows":[{"kind":"deny","schedule":"* * * * *","duration":"1h","applications":["alice-web"],"manualSync":true}]}}`)
	t.Cleanup(func() { windows(`{"spec":{"syncWindows":null}}`) })

	f := apiFleet(t, srv, token, "argo-only-alice")
	names := func() []string {
		var out []string
		for _, u := range f.Store.Snapshot() {
			if u.Key.Engine == model.EngineArgoCD {
				out = append(out, u.Key.Name)
				if u.Project != "default" {
					t.Errorf("%s of project %q shown: alice may get only project default's", u.Key.Name, u.Project)
				}
			}
		}
		return out
	}
	if got := names(); !slices.Contains(got, "alice-web") || !slices.Contains(got, "alice-gone") || slices.Contains(got, "not-alices") {
		t.Fatalf("through the API server alice sees %v; want alice-web and alice-gone, not not-alices", got)
	}
	st := f.Store.Status()[0]
	if st.Error != "" || !st.Connected {
		t.Errorf("the context reads as an error: %+v", st)
	}
	if ns := st.NotShown(); !strings.Contains(ns, "Pulumi Stacks") || strings.Contains(ns, "Argo CD Applications") || strings.Contains(ns, "AppProjects") {
		t.Errorf("not shown: %q; want the other engines' units, not the Applications nor the AppProjects", ns)
	}
	var setShown, windowShown bool
	for _, u := range f.Store.Snapshot() {
		setShown = setShown || u.Key.Engine == model.EngineApplicationSet && u.Key.Name == "alice-set"
		windowShown = windowShown || u.Key.Name == "alice-web" && u.Window != ""
	}
	if !setShown || !windowShown {
		t.Errorf("through the API server: ApplicationSet shown %v, alice-web's sync window shown %v; want both", setShown, windowShown)
	}
	testcluster.Eventually(t, 30*time.Second, "the route named with the Argo CD user", func() bool {
		return f.Store.Status()[0].Route == "argocd via http://"+srv.Addr+" as alice"
	})

	// Live: a new Application appears, a deleted one goes.
	e.app("alice-new", repo, map[string]any{})
	if err := apps.Delete(context.Background(), "alice-gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testcluster.Eventually(t, 3*time.Minute, "alice-new to arrive and alice-gone to leave through the live feed", func() bool {
		f.Store.Tick()
		got := names()
		return slices.Contains(got, "alice-new") && !slices.Contains(got, "alice-gone")
	})
	// A change of alice-web's states reaches alice through the feed: the
	// controller's comparison, or this one (written as the controller
	// writes status, on the object), whichever comes first on a busy
	// machine.
	status := []byte(`{"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`)
	if _, err := apps.Patch(context.Background(), "alice-web", types.MergePatchType, status, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	testcluster.Eventually(t, 3*time.Minute, "alice-web's sync and health states through the live feed", func() bool {
		f.Store.Tick()
		for _, u := range f.Store.Snapshot() {
			if u.Key.Name == "alice-web" {
				return u.Sync != model.SyncUnknown && u.Health != model.HealthUnknown
			}
		}
		return false
	})

	// argocd-server restarts under the feed: it lists again, and what
	// changed meanwhile arrives, nothing lost and nothing kept twice.
	lists := f.Store.Status()[0].Lists
	if err := srv.Restart(e.argo); err != nil {
		t.Fatal(err)
	}
	e.app("alice-after", repo, map[string]any{})
	if err := apps.Delete(context.Background(), "alice-new", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testcluster.Eventually(t, 3*time.Minute, "the feed back after the restart, with what changed", func() bool {
		f.Store.Tick()
		got := names()
		return f.Store.Status()[0].Lists > lists && slices.Contains(got, "alice-after") && !slices.Contains(got, "alice-new") && slices.Contains(got, "alice-web")
	})
	if st := f.Store.Status()[0]; !st.Connected || st.Error != "" {
		t.Errorf("after the restart the context reads %+v", st)
	}
}

// A token that expires in the middle of a session: once the feed has to
// reconnect (argocd-server restarted), the context says, once and plainly,
// to log in again, and the units read before stay shown.
func TestClusterAnExpiredArgoCDTokenSaysToLogInAgain(t *testing.T) {
	e := realArgo(t)
	srv := argoUser(t, e, "bob", "bob-password-0c7d")
	token, err := srv.AccountToken("bob", 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{"bob-web/cm.yaml": testargocd.ConfigMap("bob-web", "v1")})
	e.app("bob-web", repo, map[string]any{})
	f := apiFleet(t, srv, token, "argo-only-bob")
	time.Sleep(5 * time.Second) // the token expires
	if err := srv.Restart(e.argo); err != nil {
		t.Fatal(err)
	}
	var st store.ContextStatus
	testcluster.Eventually(t, 60*time.Second, "the context to say the token was rejected", func() bool {
		st = f.Store.Status()[0]
		return strings.Contains(st.Error, "token was rejected") && strings.Contains(st.Error, "argocd login")
	})
	if strings.Contains(st.Error, token) {
		t.Error("the message shows the token")
	}
	f.Store.Tick()
	found := false
	for _, u := range f.Store.Snapshot() {
		found = found || u.Key.Name == "bob-web"
	}
	if !found {
		t.Error("the units read before the token expired are gone")
	}
	t.Logf("the context says: %s", st.Error)
}
