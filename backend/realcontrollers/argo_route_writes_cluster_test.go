package realcontrollers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/livedescribe"
	"github.com/driftdeck/driftdeck/backend/livetree"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// teamPolicy: carol deploys project default's Applications (get, sync,
// update), dave only looks at them.
const teamPolicy = `p, role:deployer, applications, get, default/*, allow
p, role:deployer, applications, sync, default/*, allow
p, role:deployer, applications, update, default/*, allow
p, role:viewer, applications, get, default/*, allow
g, carol, role:deployer
g, dave, role:viewer
`

// apiWriter is driftdeck's executor as an Argo CD user whose kube identity
// may do nothing: every write to an Application goes through srv.
type apiWriter struct {
	exec   *actions.Executor
	api    *argoapi.Client
	server string
	token  string
	audit  string
}

func newAPIWriter(t *testing.T, srv *testargocd.Server, user, password string) *apiWriter {
	t.Helper()
	token, err := srv.Token(user, password)
	if err != nil {
		t.Fatal(err)
	}
	return writerWithToken(t, srv, token, "argo-only-"+user)
}

// writerWithToken writes with token through srv, as kubeUser, who may do
// nothing in Kubernetes.
func writerWithToken(t *testing.T, srv *testargocd.Server, token, kubeUser string) *apiWriter {
	t.Helper()
	kc, err := kube.NewCluster("test", testcluster.Shared(t).UserConfig(t, kubeUser, nil, ""), "default")
	if err != nil {
		t.Fatal(err)
	}
	api, err := argoapi.New(argodiff.NewServerConfig("http://"+srv.Addr, token))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return &apiWriter{api: api, server: "http://" + srv.Addr, token: token, audit: path, exec: &actions.Executor{
		Cluster: func(string) (*kube.Cluster, bool) { return kc, true },
		ArgoAPI: func(c string) (*argoapi.Client, bool) { return api, c == "test" },
		Audit:   log,
	}}
}

func (w *apiWriter) try(req actions.Request) (*actions.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return w.exec.Execute(ctx, req)
}

func (w *apiWriter) do(t *testing.T, req actions.Request) *actions.Result {
	t.Helper()
	res, err := w.try(req)
	if err != nil {
		t.Fatalf("%s %s through the API server: %v", req.Kind, req.Key.Ref(), err)
	}
	if !res.Verified {
		t.Errorf("%s %s: not verified: %v", req.Kind, req.Key.Ref(), res.Warnings)
	}
	return res
}

// entries are the audit lines written so far.
func (w *apiWriter) entries(t *testing.T) []audit.Entry {
	t.Helper()
	f, err := os.Open(w.audit)
	if errors.Is(err, os.ErrNotExist) {
		return nil // nothing written yet
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Entry
	for lines := bufio.NewScanner(f); lines.Scan(); {
		var e audit.Entry
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// policyInForce waits until argocd-server answers can-i as the policy says
// (it reads argocd-rbac-cm when it changes); each question is a new
// client's, past any answer kept.
func policyInForce(t *testing.T, w *apiWriter, action string, want bool) {
	t.Helper()
	testcluster.Eventually(t, 60*time.Second, "argocd-server to apply the policy", func() bool {
		api, err := argoapi.New(argodiff.NewServerConfig(w.server, w.token))
		if err != nil {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		yes, err := api.CanI(ctx, "applications", action, "default/any")
		return err == nil && yes == want
	})
}

// An Argo CD user with no Kubernetes rights at all does every Argo CD
// action through the API server, under Argo CD's RBAC: the object on the
// apiserver shows each write, the operations name the Argo CD user, the
// audit log names the route, the server and the user and why no Event was
// written. A user the policy lets only look is refused each write, in Argo
// CD's words, before anything is written, and its menu says so.
func TestClusterAnArgoCDUserWritesThroughTheAPIServerUnderArgoCDsRBAC(t *testing.T) {
	e := realArgo(t)
	srv, err := e.argo.StartServer()
	if err != nil {
		t.Fatalf("argocd-server: %v", err)
	}
	for user, password := range map[string]string{"carol": "carol-password-77ad", "dave": "dave-password-1f0e"} {
		if err := srv.AddAccount(e.argo, user, password); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.SetPolicy(e.argo, teamPolicy); err != nil {
		t.Fatal(err)
	}
	carol := newAPIWriter(t, srv, "carol", "carol-password-77ad")
	dave := newAPIWriter(t, srv, "dave", "dave-password-1f0e")
	policyInForce(t, carol, "sync", true)

	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{
		"carol-web/cm.yaml":  testargocd.ConfigMap("carol-web", "v1"),
		"carol-auto/cm.yaml": testargocd.ConfigMap("carol-auto", "v1"),
	})
	e.app("carol-web", repo, map[string]any{})
	e.app("carol-auto", repo, autoSync(true))
	e.waitFor("carol-web's first comparison", func() (bool, string) {
		return str(e.get("carol-web"), "status", "sync", "status") == "OutOfSync", str(e.get("carol-web"), "status", "sync", "status")
	})

	// dave may only look: each write is refused in Argo CD's words, and
	// nothing is written.
	before := str(e.get("carol-web"), "metadata", "resourceVersion")
	for _, kind := range []actions.Kind{actions.Sync, actions.Pause, actions.Terminate} {
		_, err := dave.try(actions.Request{Kind: kind, Key: e.key("carol-web"), Reason: "not mine to do"})
		var r *actions.Refusal
		if !writeguard.IsRefusal(err) || !strings.Contains(err.Error(), "Argo CD RBAC: dave may not") || !errors.As(err, &r) || !r.Permission {
			t.Errorf("dave's %s: %v; want a permission refusal in Argo CD RBAC's words", kind, err)
		}
	}
	if now := str(e.get("carol-web"), "metadata", "resourceVersion"); now != before {
		t.Errorf("dave's refused writes changed carol-web (resourceVersion %s → %s)", before, now)
	}
	u := argoUnit(e, "carol-web")
	for _, av := range dave.exec.Available(context.Background(), u) {
		want := av.Kind == actions.Refresh || av.Kind == actions.HardRefresh
		if !want && (av.Enabled || !strings.Contains(av.WhyNot, "Argo CD RBAC: dave may not")) {
			t.Errorf("dave's menu: %s enabled=%v (%q); want it refused by Argo CD RBAC", av.Kind, av.Enabled, av.WhyNot)
		}
	}
	for _, en := range dave.entries(t) {
		if en.Outcome != writeguard.OutcomeRefused || en.Actor != "dave" || en.Route != "argocd-api" {
			t.Errorf("dave's audit line %+v; want refused, as dave, through argocd-api", en)
		}
	}

	// carol syncs, with the reason in the operation's info.
	carol.do(t, actions.Request{Kind: actions.Sync, Key: e.key("carol-web"), Reason: "INC-7: ship v1"})
	e.synced("carol-web", v1)
	o := e.get("carol-web")
	if by := str(o, "status", "operationState", "operation", "initiatedBy", "username"); by != "carol" {
		t.Errorf("the sync was initiated by %q, want the Argo CD user carol", by)
	}
	if info := fmt.Sprint(o["status"].(map[string]any)["operationState"].(map[string]any)["operation"].(map[string]any)["info"]); !strings.Contains(info, "INC-7: ship v1") {
		t.Errorf("the operation's info %s does not carry the reason", info)
	}

	// Its resource tree and its Events come through the API server too:
	// carol's kube identity may read neither.
	tree, err := (&livetree.Reader{Cluster: carol.exec.Cluster, ArgoAPI: carol.exec.ArgoAPI}).Read(context.Background(), e.key("carol-web"))
	if err != nil {
		t.Fatal(err)
	}
	if n := tree.Find(restree.Ref{Kind: "ConfigMap", Namespace: e.dest, Name: "carol-web"}); n == nil || !n.Live || n.Sync != "Synced" || !strings.Contains(tree.Destination, "Argo CD's resource tree") {
		t.Errorf("the tree through the API: %+v from %q; want the ConfigMap live and synced, from Argo CD's tree", n, tree.Destination)
	}
	e.waitFor("carol-web's Events through the API server", func() (bool, string) {
		det, err := (&livedescribe.Describer{Cluster: carol.exec.Cluster, ArgoAPI: carol.exec.ArgoAPI}).Describe(context.Background(), e.key("carol-web"))
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range det.Events {
			if ev.Reason == "OperationCompleted" {
				return len(det.Problems) == 0, fmt.Sprint(det.Problems)
			}
		}
		return false, fmt.Sprint(det.Events, det.Problems)
	})

	// carol pauses auto-sync and resumes it exactly.
	policy := fmt.Sprint(e.get("carol-auto")["spec"].(map[string]any)["syncPolicy"])
	carol.do(t, actions.Request{Kind: actions.Pause, Key: e.key("carol-auto"), Reason: "INC-7: hold carol-auto"})
	if a := argoUnit(e, "carol-auto"); a.Argo.AutoSync || a.Pause == nil || a.Pause.By != "carol" {
		t.Errorf("after the pause through the API: auto-sync %v, pause %+v; want off, by carol", a.Argo.AutoSync, a.Pause)
	}
	carol.do(t, actions.Request{Kind: actions.Resume, Key: e.key("carol-auto"), Reason: "INC-7 over"})
	if now := fmt.Sprint(e.get("carol-auto")["spec"].(map[string]any)["syncPolicy"]); now != policy {
		t.Errorf("resumed policy %s, want exactly %s", now, policy)
	}

	// A refresh and a hard refresh are handled when they return.
	for _, kind := range []actions.Kind{actions.Refresh, actions.HardRefresh} {
		was := str(e.get("carol-web"), "status", "reconciledAt")
		time.Sleep(1100 * time.Millisecond) // reconciledAt counts seconds
		carol.do(t, actions.Request{Kind: kind, Key: e.key("carol-web")})
		e.waitFor(string(kind)+" handled", func() (bool, string) {
			now := str(e.get("carol-web"), "status", "reconciledAt")
			return now != was, now
		})
	}

	// A rollback to v1 after v2 was synced.
	v2 := repo.Commit("v2", map[string]string{"carol-web/cm.yaml": testargocd.ConfigMap("carol-web", "v2")})
	carol.do(t, actions.Request{Kind: actions.HardRefresh, Key: e.key("carol-web")})
	carol.do(t, actions.Request{Kind: actions.Sync, Key: e.key("carol-web"), Reason: "ship v2"})
	e.synced("carol-web", v2)
	e.waitFor("the sync to v2 to finish", func() (bool, string) {
		o := e.get("carol-web")
		_, running := o["operation"]
		return !running && str(o, "status", "operationState", "phase") == "Succeeded", str(o, "status", "operationState", "phase")
	})
	carol.do(t, actions.Request{Kind: actions.Rollback, Key: e.key("carol-web"), HistoryID: e.historyID("carol-web", v1), Reason: "v2 is broken"})
	e.waitFor("the rollback to v1", func() (bool, string) { return e.configValue("carol-web") == "v1", e.configValue("carol-web") })
	if by := str(e.get("carol-web"), "status", "operationState", "operation", "initiatedBy", "username"); by != "carol" {
		t.Errorf("the rollback was initiated by %q, want carol", by)
	}

	// A sync hung on its hook is terminated.
	repo.Commit("hook", map[string]string{"carol-hooked/cm.yaml": testargocd.ConfigMap("carol-hooked", "v1"),
		"carol-hooked/hook.yaml": fmt.Sprintf(hookJob, "presync-carol")})
	e.app("carol-hooked", repo, map[string]any{})
	e.waitFor("carol-hooked's first comparison", func() (bool, string) {
		return str(e.get("carol-hooked"), "status", "sync", "status") == "OutOfSync", ""
	})
	carol.do(t, actions.Request{Kind: actions.Sync, Key: e.key("carol-hooked"), Reason: "a sync that hangs"})
	e.waitFor("the sync to wait on its hook", func() (bool, string) {
		return str(e.get("carol-hooked"), "status", "operationState", "phase") == "Running", str(e.get("carol-hooked"), "status", "operationState", "phase")
	})
	carol.do(t, actions.Request{Kind: actions.Terminate, Key: e.key("carol-hooked"), Reason: "the hook hangs"})
	e.waitFor("the operation to end terminated", func() (bool, string) {
		o := e.get("carol-hooked")
		phase, msg := str(o, "status", "operationState", "phase"), str(o, "status", "operationState", "message")
		return (phase == "Failed" || phase == "Error") && strings.Contains(msg, "terminated"), phase + ": " + msg
	})

	// A freeze and a thaw of several Applications at once.
	repo.Commit("auto2", map[string]string{"carol-auto2/cm.yaml": testargocd.ConfigMap("carol-auto2", "v1")})
	e.app("carol-auto2", repo, autoSync(false))
	frozen := []model.Key{e.key("carol-auto"), e.key("carol-auto2")}
	for _, kind := range []actions.Kind{actions.Pause, actions.Resume} {
		for _, o := range carol.exec.Bulk(context.Background(), actions.BulkRequest{Kind: kind, Keys: frozen, Reason: "INC-7: freeze"}) {
			if o.Outcome != actions.OutcomeApplied {
				t.Errorf("bulk %s of %s: %s %s", kind, o.Key.Ref(), o.Outcome, o.Why)
			}
		}
		for _, k := range frozen {
			if a := argoUnit(e, k.Name); a.Argo.AutoSync != (kind == actions.Resume) {
				t.Errorf("after the bulk %s, %s has auto-sync %v", kind, k.Name, a.Argo.AutoSync)
			}
		}
	}

	// A prune that waits for confirmation is confirmed.
	repo.Commit("prunable", map[string]string{"carol-prune/cm.yaml": testargocd.ConfigMap("carol-prune", "v1"),
		"carol-prune/old.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: carol-old\n  annotations:\n    argocd.argoproj.io/sync-options: Prune=confirm\ndata:\n  value: old\n"})
	e.app("carol-prune", repo, map[string]any{})
	e.waitFor("carol-prune's first comparison", func() (bool, string) {
		return str(e.get("carol-prune"), "status", "sync", "status") == "OutOfSync", ""
	})
	carol.do(t, actions.Request{Kind: actions.Sync, Key: e.key("carol-prune"), Reason: "first"})
	e.waitFor("carol-old deployed", func() (bool, string) { return configValue(e.kube, e.dest, "carol-old") == "old", "" })
	repo.Remove("drop old", "carol-prune/old.yaml")
	carol.do(t, actions.Request{Kind: actions.HardRefresh, Key: e.key("carol-prune")})
	e.waitFor("the previous sync to finish", func() (bool, string) {
		_, running := e.get("carol-prune")["operation"]
		return !running, ""
	})
	carol.do(t, actions.Request{Kind: actions.Sync, Key: e.key("carol-prune"), Reason: "drop old", Prune: true})
	e.waitFor("the sync to wait for the prune's confirmation", func() (bool, string) {
		msg := str(e.get("carol-prune"), "status", "operationState", "message")
		return strings.Contains(msg, "pruning confirmation"), msg
	})
	carol.do(t, actions.Request{Kind: actions.ConfirmPrune, Key: e.key("carol-prune"), Reason: "yes, drop it"})
	// The controller prunes with foreground deletion, which no garbage
	// collector finishes on this control plane: the sync's result says it.
	e.waitFor("carol-old pruned", func() (bool, string) {
		o := e.get("carol-prune")
		res := fmt.Sprint(o["status"].(map[string]any)["operationState"])
		return str(o, "status", "operationState", "phase") == "Succeeded" && strings.Contains(res, "message:pruned name:carol-old"), res
	})

	// Every write is on carol's audit log with its route, server and user,
	// and says why no Event was written (her kube identity may not).
	entries := carol.entries(t)
	if len(entries) < 16 {
		t.Fatalf("carol's audit log has %d lines, want one per write", len(entries))
	}
	for _, en := range entries {
		if en.Outcome != writeguard.OutcomeDone || en.Actor != "carol" || en.Route != "argocd-api" || en.Server != "http://"+srv.Addr ||
			!strings.Contains(en.NoEvent, "may not create Events") {
			t.Errorf("audit line %+v; want done, as carol, through argocd-api at http://%s, saying why no Event was written", en, srv.Addr)
		}
	}
}

func argoUnit(e *env, name string) *model.Unit { return argocd.Convert("test", e.get(name)) }
