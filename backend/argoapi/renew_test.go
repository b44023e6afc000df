package argoapi

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/testkit/testsso"
)

// In the middle of a session the server rejects an SSO login's token (it
// expired there first): the token is renewed once, the request sent again
// with the new one, and a write keeps its body. When the provider will not
// renew it, the one message says to log in again with SSO.
func TestARejectedSSOTokenIsRenewedOnceAndTheRequestSentAgain(t *testing.T) {
	var sso *testsso.Provider
	var rejected atomic.Int32
	sso = testsso.Start(t, "refresh-1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+sso.Issued() || sso.Issued() == "" {
			rejected.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"code":16,"message":"invalid session: token has expired"}`))
			return
		}
		body := make([]byte, 64)
		n, _ := r.Body.Read(body)
		w.Write([]byte(`{"metadata":{"name":"web"},"echo":` + string(body[:n]) + `}`))
	}))
	host := strings.TrimPrefix(sso.URL, "http://")
	still := testsso.JWT(time.Now().Add(time.Hour), "alice@old-session") // valid by its exp; the server says otherwise
	cfg, err := argodiff.LoadServerConfig(argodiff.ServerFlags{ConfigPath: testsso.WriteConfig(t, t.TempDir(), host, still, "refresh-1")})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	app, err := c.Sync(context.Background(), App{Name: "web"}, SyncRequest{Revision: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	if echo, _ := app["echo"].(map[string]any); echo["revision"] != "abc" || rejected.Load() != 1 {
		t.Errorf("after renewal the server got %v (rejected %d times); want the sync's body, rejected once", app["echo"], rejected.Load())
	}

	// A refresh token already claimed is not renewed again.
	cfg, err = argodiff.LoadServerConfig(argodiff.ServerFlags{ConfigPath: testsso.WriteConfig(t, t.TempDir(), host, still, "refresh-1")})
	if err != nil {
		t.Fatal(err)
	}
	c, _ = New(cfg)
	_, err = applications(c, nil)
	if !Unauthorized(err) || !strings.Contains(err.Error(), "argocd login --sso "+host) {
		t.Fatalf("got %v; want the rejection, saying to run argocd login --sso %s", err, host)
	}
}
