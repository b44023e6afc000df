package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// permUnit is one unit of every engine, in a state where the actions its
// engine has are partly possible, with what an administrator is offered.
type permUnit struct {
	engine  model.Engine
	gvr     schema.GroupVersionResource
	name    string
	text    string
	convert func(context string, obj map[string]any) *model.Unit
	// admin is what the state allows, so what a user who may patch the
	// kind is offered; the rest is refused by the unit's state.
	admin []actions.Kind
}

var permUnits = []permUnit{
	{model.EngineArgoCD, argocd.Applications, "web", `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},
		"syncPolicy":{"automated":{"prune":true,"selfHeal":true}}},
		"status":{"sync":{"status":"OutOfSync","revision":"1111111111111111111111111111111111111111"},"health":{"status":"Healthy"}}}`,
		argocd.Convert, []actions.Kind{actions.Sync, actions.Approve, actions.Refresh, actions.HardRefresh, actions.Pause, actions.PauseSelfHeal}},
	{model.EnginePulumi, pulumiop.Stacks, "net", `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},
		"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"}}`,
		pulumiop.Convert, []actions.Kind{actions.Retry, actions.Pause}},
	{model.EngineKustomization, flux.Kustomizations[0], "apps", `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"apps"},
		"spec":{"interval":"10m","prune":true,"path":"./apps","sourceRef":{"kind":"GitRepository","name":"infra"}}}`,
		flux.ConvertKustomization, []actions.Kind{actions.Refresh, actions.Pause}},
	{model.EngineHelmRelease, flux.HelmReleases[0], "api", `{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"api"},
		"spec":{"interval":"30m","chart":{"spec":{"chart":"podinfo","version":"6.x","sourceRef":{"kind":"HelmRepository","name":"podinfo"}}}}}`,
		flux.ConvertHelmRelease, []actions.Kind{actions.Refresh, actions.Force, actions.Pause}},
	{model.EngineTerraform, tofu.Terraforms[0], "vpc", `{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":"vpc"},
		"spec":{"interval":"10m","path":"./","approvePlan":"auto","sourceRef":{"kind":"GitRepository","name":"infra"}}}`,
		tofu.Convert, []actions.Kind{actions.Refresh, actions.Pause}},
}

// Users of three kinds, each by its own token and by impersonation (--as),
// on every engine: offered exactly the actions they may take; a forbidden
// write refused (exit 4) saying why, with nothing written; an allowed one
// let through. An administrator in --read-only mode writes nothing, for
// every action and the state backend's unlock.
func TestClusterEachUserIsOfferedExactlyWhatItMayDoOnEveryEngine(t *testing.T) {
	c := testcluster.SharedNewestUpstream(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	for _, u := range permUnits {
		o := &unstructured.Unstructured{}
		if err := json.Unmarshal([]byte(u.text), &o.Object); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(u.gvr).Namespace(ns).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	read := rbacv1.PolicyRule{APIGroups: []string{"argoproj.io", "pulumi.com", "kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "infra.contrib.fluxcd.io"},
		Resources: []string{"applications", "appprojects", "stacks", "kustomizations", "helmreleases", "terraforms"}, Verbs: []string{"get", "list", "watch"}}
	users := []struct {
		name  string
		rules []rbacv1.PolicyRule
		may   func(model.Engine) bool
	}{
		{"viewer", []rbacv1.PolicyRule{read}, func(model.Engine) bool { return false }},
		{"app-operator", []rbacv1.PolicyRule{read, {APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"patch"}}},
			func(e model.Engine) bool { return e == model.EngineArgoCD }},
		{"admin", []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}, func(model.Engine) bool { return true }},
	}
	adminKC := testcluster.Kubeconfig(t, c.Config(), "perm")
	// stateWriters: each user's connections, for the state backend's writes.
	type connection struct {
		who  string
		args []string
		may  bool
	}
	var stateWriters []connection
	for _, user := range users {
		tokenCfg, username := c.ServiceAccountConfig(t, user.name, user.rules, ns)
		impersonated := c.Config()
		impersonated.Impersonate = rest.ImpersonationConfig{UserName: username}
		for _, mode := range []struct {
			name string
			cfg  *rest.Config
			args []string // how the command line connects as the user
		}{
			{"token", tokenCfg, []string{"--kubeconfig", testcluster.Kubeconfig(t, tokenCfg, "perm")}},
			{"as", impersonated, []string{"--kubeconfig", adminKC, "--as", username}},
		} {
			stateWriters = append(stateWriters, connection{user.name + " by " + mode.name, mode.args, user.may(model.EnginePulumi)})
			kc, err := kube.NewCluster("perm", mode.cfg, ns)
			if err != nil {
				t.Fatal(err)
			}
			exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}
			for _, u := range permUnits {
				t.Run(user.name+"/"+mode.name+"/"+string(u.engine), func(t *testing.T) {
					obj := getObj(t, dyn, u.gvr, ns, u.name)
					var offered []actions.Kind
					for _, av := range exec.Available(context.Background(), u.convert("perm", obj.Object)) {
						switch {
						case av.Enabled:
							offered = append(offered, av.Kind)
						case !user.may(u.engine) && !strings.Contains(av.WhyNot, "RBAC: you may not patch"):
							t.Errorf("%s not offered, but not for lack of permission: %q", av.Kind, av.WhyNot)
						}
					}
					var want []actions.Kind
					if user.may(u.engine) {
						want = u.admin
					}
					if !slices.Equal(offered, want) {
						t.Errorf("offered %v, want %v", offered, want)
					}
					t.Logf("offered %v", offered)

					// Every action the state allows, from the command line:
					// refused for lack of permission (exit 4, saying why), or
					// let through and written as a server-side dry run.
					ref := string(u.engine) + "/" + ns + "/" + u.name
					for _, k := range u.admin {
						args := append(append(commandOf(k, ref), "--reason", "perm", "--yes"), mode.args...)
						if user.may(u.engine) {
							args = append(args, "--dry-run")
						}
						code, out, stderr := run(t, args...)
						switch {
						case user.may(u.engine) && (code != 0 || !strings.Contains(out, "DRY RUN")):
							t.Errorf("driftdeck %s, allowed: exit %d\n%s%s", k, code, out, stderr)
						case !user.may(u.engine) && (code != exitForbidden || !strings.Contains(stderr, "may not patch")):
							t.Errorf("driftdeck %s, forbidden: exit %d, stderr %q; want exit 4 saying why", k, code, stderr)
						}
					}
					if after := getObj(t, dyn, u.gvr, ns, u.name); after.GetResourceVersion() != obj.GetResourceVersion() {
						t.Errorf("resourceVersion %s → %s: something was written", obj.GetResourceVersion(), after.GetResourceVersion())
					}
				})
			}
		}
	}

	t.Run("read-only admin and the state backend", func(t *testing.T) {
		unit, lock := lockedStack(t, dyn, ns)
		backend, _, _ := strings.Cut(lock, string(filepath.Separator)+".pulumi"+string(filepath.Separator))
		before := snapshotDir(t, backend)
		writes := [][]string{{"unlock", unit}, {"unlock", unit, "--clear-pending"}}
		for _, u := range permUnits {
			for _, k := range actions.KindsFor(u.engine) {
				if k == actions.Unlock {
					continue
				}
				writes = append(writes, commandOf(k, string(u.engine)+"/"+ns+"/"+u.name))
			}
		}
		versions := func() map[string]string {
			out := map[string]string{}
			for _, u := range permUnits {
				out[u.name] = getObj(t, dyn, u.gvr, ns, u.name).GetResourceVersion()
			}
			return out
		}
		was := versions()
		for _, w := range writes {
			code, out, stderr := run(t, append(w, "--reason", "perm", "--yes", "--read-only", "--kubeconfig", adminKC)...)
			if code != exitForbidden || !strings.Contains(stderr, "read-only") || strings.Contains(out, "done") {
				t.Errorf("driftdeck %s --read-only: exit %d\n%s%s; want exit 4, read-only", strings.Join(w, " "), code, out, stderr)
			}
		}
		if now := versions(); fmt.Sprint(now) != fmt.Sprint(was) {
			t.Errorf("read-only writes moved objects: %v → %v", was, now)
		}
		// The state backend's writes need the Stack's patch permission.
		for _, conn := range stateWriters {
			for _, w := range writes[:2] {
				args := append(append(w, "--reason", "perm", "--yes"), conn.args...)
				if conn.may {
					args = append(args, "--dry-run")
				}
				code, out, stderr := run(t, args...)
				switch {
				case conn.may && (code != 0 || !strings.Contains(out, "DRY RUN")):
					t.Errorf("%s: driftdeck %s, allowed: exit %d\n%s%s", conn.who, strings.Join(w, " "), code, out, stderr)
				case !conn.may && (code != exitForbidden || !strings.Contains(stderr, "may not patch")):
					t.Errorf("%s: driftdeck %s, forbidden: exit %d, stderr %q; want exit 4 saying why", conn.who, strings.Join(w, " "), code, stderr)
				}
			}
		}
		if after := snapshotDir(t, backend); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("a refused or dry-run unlock changed the state backend")
		}
		t.Logf("%d writes refused read-only", len(writes))
	})
}

// commandOf is the command line of an action kind on one unit.
func commandOf(k actions.Kind, ref string) []string {
	switch k {
	case actions.PauseSelfHeal:
		return []string{"pause", ref, "--self-heal-only"}
	case actions.HardRefresh:
		return []string{"refresh", ref, "--hard"}
	case actions.Rollback:
		return []string{"rollback", ref, "1"}
	}
	return []string{string(k), ref}
}

func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func getObj(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	o, err := dyn.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}
