package realcontrollers

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
)

func secretManifest(name, password string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\nstringData:\n  password: %q\n", name, password)
}

// loginAsAUser runs `argocd login` against the real server with a fresh
// HOME, and points this test's HOME there too: driftdeck then finds the
// server and token where the argocd CLI left them, with no flag.
func loginAsAUser(t *testing.T, e *env) (*testargocd.Server, *argodiff.ServerConfig) {
	t.Helper()
	t0 := time.Now()
	srv, err := e.argo.StartServer()
	if err != nil {
		t.Fatalf("argocd-server: %v", err)
	}
	home := t.TempDir()
	if err := srv.Login(home); err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, e.argo.Log("server"))
	}
	t.Logf("argocd-server up and logged in after %v", time.Since(t0).Round(time.Millisecond))
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", argodiff.EnvConfigDir, argodiff.EnvServer, argodiff.EnvAuthToken} {
		t.Setenv(v, "")
	}
	cfg, err := argodiff.LoadServerConfig(argodiff.ServerFlags{})
	if err != nil {
		t.Fatalf("reading the config argocd login wrote: %v", err)
	}
	if cfg == nil || cfg.Server != srv.Addr || !cfg.PlainText {
		t.Fatalf("after argocd login, driftdeck's API server is %v, want %s in plain text", cfg, srv.Addr)
	}
	return srv, cfg
}

func TestClusterRealArgoServerDiffFromTheArgocdLoginConfigAgreesWithTheController(t *testing.T) {
	localrendertest.Use(t) // the local diff it is compared with renders in the helper
	e := realArgo(t)
	_, server := loginAsAUser(t, e)

	const oldSecret, newSecret = "v1-db-password-7f3a", "v2-db-password-91c4"
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{
		"served/keep.yaml":    testargocd.ConfigMap("keep", "same"),
		"served/changed.yaml": testargocd.ConfigMap("changed", "v1"),
		"served/gone.yaml":    testargocd.ConfigMap("gone", "v1"),
		"served/edited.yaml":  testargocd.ConfigMap("edited", "v1"),
		"served/secret.yaml":  secretManifest("db", oldSecret),
	})
	e.app("served", repo, map[string]any{})
	e.waitFor("the first comparison", func() (bool, string) {
		return str(e.get("served"), "status", "sync", "revision") == v1, str(e.get("served"), "status", "sync", "status")
	})
	e.do(actions.Request{Kind: actions.Sync, Key: e.key("served"), Reason: "deploy v1", Revision: v1})
	e.synced("served", v1)

	// Git changes a value, adds, removes and rotates the Secret; a value is
	// edited by hand on the live side.
	repo.Commit("v2", map[string]string{
		"served/changed.yaml": testargocd.ConfigMap("changed", "v2"),
		"served/added.yaml":   testargocd.ConfigMap("added", "new"),
		"served/secret.yaml":  secretManifest("db", newSecret),
	})
	v2 := repo.Remove("v2 drops gone", "served/gone.yaml")
	ctx := context.Background()
	cm, err := e.kube.CoreV1().ConfigMaps(e.dest).Get(ctx, "edited", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["value"] = "edited by hand"
	if _, err := e.kube.CoreV1().ConfigMaps(e.dest).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := str(e.get("served"), "status", "reconciledAt")
	time.Sleep(1100 * time.Millisecond) // reconciledAt has a resolution of seconds
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key("served")})
	e.waitFor("the controller's comparison at v2 after the edit", func() (bool, string) {
		o := e.get("served")
		pending := refreshPending(o)
		return !pending && str(o, "status", "sync", "revision") == v2 && str(o, "status", "reconciledAt") != before,
			str(o, "status", "sync", "revision") + " at " + str(o, "status", "reconciledAt")
	})

	app := e.get("served")
	t0 := time.Now()
	fromServer, err := (&argodiff.APISource{Server: server}).Diff(ctx, app, e.cluster)
	if err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, e.argo.Log("server"))
	}
	t.Logf("the API server's diff took %v", time.Since(t0).Round(time.Millisecond))
	local, err := (&argodiff.LocalSource{CacheDir: t.TempDir()}).Diff(ctx, app, e.cluster)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fromServer.Source, server.Server) {
		t.Errorf("the diff says it comes from %q, not the server %s", fromServer.Source, server.Server)
	}
	if fromServer.Revision != v2 {
		t.Errorf("the server's diff is bound to %s, the controller compared %s", fromServer.Revision, v2)
	}
	want := "ConfigMap/added ConfigMap/changed ConfigMap/edited ConfigMap/gone Secret/db"
	for what, got := range map[string][]string{
		"the controller's comparison": outOfSync(app),
		"the API server's diff":       changed(fromServer.Report),
		"the local diff":              changed(local.Report),
	} {
		if strings.Join(got, " ") != want {
			t.Errorf("%s changes %v, want %s", what, got, want)
		}
	}

	// The rotated Secret shows as changed in data.password, its values never.
	secret := objectDiff(fromServer.Report, "Secret", "db")
	if secret == nil || secret.Change != diff.Modified {
		t.Fatalf("the server's diff of Secret db: %+v, want it modified", secret)
	}
	if len(secret.Fields) != 1 || secret.Fields[0].Path != "data.password" {
		t.Errorf("the Secret's changed fields: %+v, want data.password only", secret.Fields)
	}
	for _, o := range fromServer.Report.Objects {
		shown := o.Live + o.Desired // the line diff is made of these
		for _, v := range []string{oldSecret, newSecret, base64.StdEncoding.EncodeToString([]byte(oldSecret)), base64.StdEncoding.EncodeToString([]byte(newSecret))} {
			if strings.Contains(shown, v) {
				t.Errorf("the server's diff of %s shows a secret value: %s", o.Key, shown)
			}
		}
	}
}

func objectDiff(r *diff.Report, kind, name string) *diff.ObjectDiff {
	for _, o := range r.Objects {
		if o.Key.Kind == kind && o.Key.Name == name {
			return o
		}
	}
	return nil
}

func TestClusterRealArgoServerRefusalsTellTheUserWhatToDo(t *testing.T) {
	e := realArgo(t)
	srv, server := loginAsAUser(t, e)
	ctx := context.Background()
	nowhere := map[string]any{"metadata": map[string]any{"name": "no-such-app", "namespace": testargocd.Namespace}}

	// Argo CD answers "permission denied" for an app that does not exist, so
	// as not to tell who may not see it whether it exists.
	_, err := (&argodiff.APISource{Server: server}).Diff(ctx, nowhere, e.cluster)
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "it also answers this for apps that do not exist") {
		t.Errorf("the diff of an app that does not exist: %v, want the 403 explained", err)
	}

	forged := argodiff.NewServerConfig(srv.Addr, "not-a-token-this-server-issued")
	forged.PlainText = true
	_, err = (&argodiff.APISource{Server: forged}).Diff(ctx, nowhere, e.cluster)
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "argocd login "+srv.Addr) {
		t.Errorf("the diff with a token the server did not issue: %v, want a 401 that says to log in again", err)
	}
}
