package argodiff

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driftdeck/driftdeck/backend/diff"
)

const testToken = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.s1gnature"

func guestbookApp(revision string) map[string]any {
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "guestbook", "namespace": "argocd"},
		"spec": map[string]any{
			"source":      map[string]any{"repoURL": "https://github.com/argoproj/argocd-example-apps", "path": "guestbook", "targetRevision": "HEAD"},
			"destination": map[string]any{"server": inClusterServer, "namespace": "default"},
		},
		"status": map[string]any{"sync": map[string]any{"status": "OutOfSync", "revision": revision}},
	}
}

// argoServer answers managed-resources requests the way argocd-server's
// gateway does, and records what it was asked.
type argoServer struct {
	body     []byte
	status   int
	gotPath  string
	gotQuery string
	gotAuth  string
}

func (a *argoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.gotPath, a.gotQuery, a.gotAuth = r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization")
	w.Header().Set("Content-Type", "application/json")
	if a.status != 0 {
		w.WriteHeader(a.status)
	}
	w.Write(a.body)
}

func fixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "managed-resources.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func plainSource(t *testing.T, h http.Handler) *APISource {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := NewServerConfig(strings.TrimPrefix(srv.URL, "http://"), testToken)
	cfg.PlainText = true
	return &APISource{Server: cfg}
}

func objectByName(t *testing.T, r *diff.Report, kind, name string) *diff.ObjectDiff {
	t.Helper()
	for _, o := range r.Objects {
		if o.Key.Kind == kind && o.Key.Name == name {
			return o
		}
	}
	t.Fatalf("no %s %s in the report", kind, name)
	return nil
}

func fieldPaths(o *diff.ObjectDiff) []string {
	var out []string
	for _, f := range o.Fields {
		out = append(out, f.Path)
	}
	return out
}

func TestAPISourceDiffsPredictedAgainstNormalizedLive(t *testing.T) {
	srv := &argoServer{body: fixture(t)}
	src := plainSource(t, srv)
	app := guestbookApp("53e28ff20cc530b9ada2173fbbd64d48338583ba")

	res, err := src.Diff(context.Background(), app, nil)
	if err != nil {
		t.Fatal(err)
	}
	if srv.gotPath != "/api/v1/applications/guestbook/managed-resources" || srv.gotQuery != "appNamespace=argocd" {
		t.Errorf("asked %s?%s", srv.gotPath, srv.gotQuery)
	}
	if srv.gotAuth != "Bearer "+testToken {
		t.Errorf("Authorization header %q", srv.gotAuth)
	}
	r := res.Report
	if r.Added != 1 || r.Removed != 1 || r.Modified != 2 || r.Unchanged != 1 || len(r.Objects) != 5 {
		t.Fatalf("added %d removed %d modified %d unchanged %d of %d objects; want 1/1/2/1 of 5 (the hook left out)",
			r.Added, r.Removed, r.Modified, r.Unchanged, len(r.Objects))
	}
	// Server-side defaults and status are on both sides: only the two real
	// changes remain.
	dep := objectByName(t, r, "Deployment", "guestbook-ui")
	if got, want := fieldPaths(dep), []string{"spec.replicas", "spec.template.spec.containers[0].image"}; !slices.Equal(got, want) {
		t.Errorf("Deployment changes %v, want %v", got, want)
	}
	if dep.Key.Group != "apps" || dep.Key.Namespace != "default" {
		t.Errorf("Deployment key %+v", dep.Key)
	}
	if c := objectByName(t, r, "ConfigMap", "guestbook-config").Change; c != diff.Added {
		t.Errorf("guestbook-config is %v, want added", c)
	}
	if c := objectByName(t, r, "ConfigMap", "old-config").Change; c != diff.Removed {
		t.Errorf("old-config is %v, want removed (to be pruned)", c)
	}
	sec := objectByName(t, r, "Secret", "guestbook-secret")
	if got := fieldPaths(sec); !slices.Equal(got, []string{"data.password"}) {
		t.Errorf("Secret changes %v, want [data.password]", got)
	}
	if res.Revision != "53e28ff20cc530b9ada2173fbbd64d48338583ba" || res.SyncRevision != res.Revision {
		t.Errorf("revision %q, sync revision %q", res.Revision, res.SyncRevision)
	}
	if res.Stale(app) {
		t.Error("the diff is stale for the app it was computed for")
	}
	moved := guestbookApp("9c1f7b2e0d4a6c8e1f3b5d7a9c0e2f4b6d8a0c1e")
	if !res.Stale(moved) {
		t.Error("the diff is not stale after the app's sync revision moved")
	}
}

func TestAPISourceFallsBackToTargetAgainstLive(t *testing.T) {
	// Servers that send no normalised or predicted state: live vs target.
	var resp map[string][]map[string]any
	if err := json.Unmarshal(fixture(t), &resp); err != nil {
		t.Fatal(err)
	}
	for _, it := range resp["items"] {
		delete(it, "normalizedLiveState")
		delete(it, "predictedLiveState")
	}
	body, _ := json.Marshal(resp)
	res, err := plainSource(t, &argoServer{body: body}).Diff(context.Background(), guestbookApp("abc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dep := objectByName(t, res.Report, "Deployment", "guestbook-ui")
	if !slices.Contains(fieldPaths(dep), "spec.replicas") {
		t.Errorf("Deployment changes %v lack spec.replicas", fieldPaths(dep))
	}
	if objectByName(t, res.Report, "ConfigMap", "old-config").Change != diff.Removed {
		t.Error("old-config should be removed")
	}
}

func TestAPISourceMapsRefusalsToClearErrors(t *testing.T) {
	cases := []struct {
		status int
		body   string
		want   []string
	}{
		{http.StatusUnauthorized, `{"error":"invalid session: token has invalid claims: token is expired","code":16,"message":"invalid session: token has invalid claims: token is expired"}`,
			[]string{"401", "argocd login", "token is expired"}},
		{http.StatusForbidden, `{"error":"permission denied","code":7,"message":"permission denied"}`,
			[]string{"403", "may not get application argocd/guestbook", "permission denied"}},
		{http.StatusNotFound, `{"error":"applications.argoproj.io \"guestbook\" not found","code":5,"message":"applications.argoproj.io \"guestbook\" not found"}`,
			[]string{"404", "application argocd/guestbook not found", "Argo CD instance"}},
		{http.StatusBadGateway, `<html>bad gateway</html>`, []string{"502", "bad gateway"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			_, err := plainSource(t, &argoServer{status: c.status, body: []byte(c.body)}).Diff(context.Background(), guestbookApp("abc"), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testToken) {
				t.Error("the error shows the token")
			}
		})
	}
}

func TestAPISourceTLS(t *testing.T) {
	srv := httptest.NewTLSServer(&argoServer{body: fixture(t)})
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	app := guestbookApp("abc")

	verified := NewServerConfig(host, testToken)
	_, err := (&APISource{Server: verified}).Diff(context.Background(), app, nil)
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("an unknown certificate was accepted without insecure: %v", err)
	}
	if strings.Contains(err.Error(), testToken) {
		t.Error("the error shows the token")
	}

	insecure := NewServerConfig(host, testToken)
	insecure.Insecure = true
	if _, err := (&APISource{Server: insecure}).Diff(context.Background(), app, nil); err != nil {
		t.Fatalf("insecure: %v", err)
	}

	// The server's CA given as certificate-authority-data verifies it.
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	withCA := NewServerConfig(host, testToken)
	if err := withCA.setCertificates(localServer{CAData: base64.StdEncoding.EncodeToString(caPEM)}); err != nil {
		t.Fatal(err)
	}
	if _, err := (&APISource{Server: withCA}).Diff(context.Background(), app, nil); err != nil {
		t.Fatalf("with the CA: %v", err)
	}

	// A URL with its scheme is used as given.
	asURL := NewServerConfig(srv.URL, testToken)
	asURL.Insecure = true
	if _, err := (&APISource{Server: asURL}).Diff(context.Background(), app, nil); err != nil {
		t.Fatalf("server given as a URL: %v", err)
	}
}

func TestAPISourceRootPath(t *testing.T) {
	srv := &argoServer{body: fixture(t)}
	src := plainSource(t, srv)
	src.Server.RootPath = "/argo-cd/"
	if _, err := src.Diff(context.Background(), guestbookApp("abc"), nil); err != nil {
		t.Fatal(err)
	}
	if srv.gotPath != "/argo-cd/api/v1/applications/guestbook/managed-resources" {
		t.Errorf("asked %s", srv.gotPath)
	}
}

func TestServerConfigNeverPrintsTheToken(t *testing.T) {
	cfg := NewServerConfig("argocd.example.com", testToken)
	for _, s := range []string{
		fmt.Sprint(cfg), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg),
		fmt.Sprintf("%v %+v %#v %s", *cfg, *cfg, *cfg, *cfg),
	} {
		if strings.Contains(s, testToken) || !strings.Contains(s, "argocd.example.com") {
			t.Errorf("printed as %q", s)
		}
	}
}

// Diffs one after another share one connection: a client per diff left a
// kept-alive connection (and its goroutines) behind for each.
func TestAPISourceDiffsReuseOneConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(&argoServer{body: fixture(t)})
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	cfg := NewServerConfig(strings.TrimPrefix(srv.URL, "http://"), testToken)
	cfg.PlainText = true
	src := &APISource{Server: cfg}
	for i := 0; i < 20; i++ {
		if _, err := src.Diff(context.Background(), guestbookApp("53e28ff20cc530b9ada2173fbbd64d48338583ba"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("20 diffs opened %d connections, want 1", n)
	}
}
