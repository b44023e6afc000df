package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/policy"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// applyDeploy creates the objects of deploy/ files as an administrator.
func (w *world) applyDeploy(files ...string) {
	w.t.Helper()
	resources := map[string]schema.GroupVersionResource{
		"Namespace":          {Version: "v1", Resource: "namespaces"},
		"ServiceAccount":     {Version: "v1", Resource: "serviceaccounts"},
		"ClusterRole":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		"ClusterRoleBinding": {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
		"Role":               {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
		"RoleBinding":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	}
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join("../../deploy", f))
		if err != nil {
			w.t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			var o unstructured.Unstructured
			if err := dec.Decode(&o.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				w.t.Fatalf("deploy/%s: %v", f, err)
			}
			if o.Object == nil {
				continue
			}
			gvr, ok := resources[o.GetKind()]
			if !ok {
				w.t.Fatalf("deploy/%s: no resource known for kind %s", f, o.GetKind())
			}
			if _, err := w.dyn.Resource(gvr).Namespace(o.GetNamespace()).Create(context.Background(), &o, metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("deploy/%s: creating %s %s: %v", f, o.GetKind(), o.GetName(), err)
			}
		}
	}
}

// forbiddenLog records every request the apiserver answered 403.
type forbiddenLog struct {
	mu   sync.Mutex
	seen []string
	rt   http.RoundTripper
}

func (f *forbiddenLog) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := f.rt.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusForbidden {
		f.mu.Lock()
		f.seen = append(f.seen, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
	}
	return resp, err
}

func (f *forbiddenLog) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// The ServiceAccount, ClusterRole and bindings of deploy/ are enough for
// everything the agent does, and no more: run with a token of that
// ServiceAccount, it lists and watches, holds its Lease, resumes a pause
// alice made that expired (under its own name, quoting her reason) and runs
// a remediation, each with its Event, and not one request is forbidden; a
// write outside the role is.
func TestClusterTheAgentRunsOnDeploysRoleWithoutAForbiddenRequest(t *testing.T) {
	w := newWorldAlone(t, "test")
	ctx := context.Background()
	w.applyDeploy("namespace.yaml", "rbac.yaml")
	tok, err := w.kc.Kube.CoreV1().ServiceAccounts(DefaultLeaseNamespace).CreateToken(ctx, "driftdeck-agent",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(w.c.Config())
	cfg.BearerToken = tok.Status.Token
	forbidden := &forbiddenLog{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { forbidden.rt = rt; return forbidden }
	sa, err := kube.NewCluster("test", cfg, "default")
	if err != nil {
		t.Fatal(err)
	}

	w.app("held", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	w.app("migrate", `"automated":{}`, `"sync":{"status":"OutOfSync","revision":"`+sha+`"},"health":{"status":"Progressing"},
		"operationState":{"phase":"Running","message":"waiting for completion of hook batch/Job/db-migrate","startedAt":"`+ago(20*time.Minute)+`","operation":{"sync":{"revision":"`+sha+`"}}}`,
		`,"operation":{"initiatedBy":{"automated":true},"sync":{"revision":"`+sha+`"}}`)

	fctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	f := fleet.New(fleet.Options{})
	if err := f.Add(fctx, sa, w.ns); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := f.WaitSynced(wctx); err != nil {
		t.Fatalf("the ServiceAccount's watches: %v", err)
	}
	log, err := audit.Open(w.audit)
	if err != nil {
		t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: f.Cluster, Audit: log}
	k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: "held"}
	const reason = "INC-5: hold held while the hotfix rolls"
	before := w.get("held").Object["spec"].(map[string]any)["syncPolicy"]
	paused := w.pauseAs("alice", k, reason, time.Second)
	rule := policy.Rule{Name: "unstick-hooks", When: policy.ArgoHookStuck, After: 10 * time.Minute, MaxAttempts: 3, MaxPerHour: 5}
	a := &Agent{Store: f.Store, Exec: exec, Contexts: []string{"test"}, Interval: 200 * time.Millisecond, MetricsAddr: "127.0.0.1:0", ProbeAddr: "0",
		Elections: []*Election{{Context: "test", Client: sa.Kube, Namespace: DefaultLeaseNamespace, Name: DefaultLeaseName, Identity: "sa-replica", LeaseDuration: 3 * time.Second}},
		Policies:  &policy.Engine{Rules: []policy.Rule{rule}, Exec: exec, DryExec: &actions.Executor{Cluster: f.Cluster, Audit: log, DryRun: true}}}
	start(t, a)

	testcluster.Eventually(t, 30*time.Second, "the expired pause resumed and the stuck hook terminated", func() bool {
		app, err := w.dyn.Resource(argocd.Applications).Namespace(w.ns).Get(ctx, "migrate", metav1.GetOptions{})
		phase, _, _ := unstructured.NestedString(app.Object, "status", "operationState", "phase")
		return err == nil && phase == "Terminating" && w.get("held").GetAnnotations()["driftdeck.io/paused-by"] == ""
	})
	// The Event follows its write, so it may land a moment after the
	// object shows the write.
	reasons := map[string]bool{}
	for deadline := time.Now().Add(10 * time.Second); len(reasons) < 3 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, name := range []string{"held", "migrate"} {
			for _, e := range w.events(name) {
				reasons[name+" "+e.Reason] = true
			}
		}
	}
	if len(reasons) < 3 {
		t.Errorf("Events of the writes: %v, want the pause, the resume and the terminate", reasons)
	}
	w.checkResumedBy("system:serviceaccount:"+DefaultLeaseNamespace+":driftdeck-agent", k, paused, before)
	if p := Running(ctx, w.kc.Kube, DefaultLeaseNamespace, DefaultLeaseName, time.Now()); p.Holder != "sa-replica" {
		t.Errorf("the Lease: %+v, want held by the agent", p)
	}
	time.Sleep(time.Second) // a few more passes, watches and renewals
	if got := forbidden.list(); len(got) > 0 {
		t.Errorf("the ServiceAccount was refused %d requests: %s", len(got), strings.Join(got, "; "))
	}

	// Outside the role: a ConfigMap, a Secret, deleting an Application.
	_, cmErr := sa.Kube.CoreV1().ConfigMaps(w.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	_, secErr := sa.Kube.CoreV1().Secrets(w.ns).Get(ctx, "any", metav1.GetOptions{})
	delErr := sa.Dynamic.Resource(argocd.Applications).Namespace(w.ns).Delete(ctx, "held", metav1.DeleteOptions{})
	for what, err := range map[string]error{"creating a ConfigMap": cmErr, "reading a Secret": secErr, "deleting an Application": delErr} {
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s as the agent's ServiceAccount: %v, want forbidden", what, err)
		}
	}
}
