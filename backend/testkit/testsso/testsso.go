// Package testsso stands in for an Argo CD server's SSO as the argocd CLI
// meets it when it renews a login: the server's settings naming its own
// Dex, and that Dex's discovery and token endpoint. It also writes the
// argocd CLI's config as `argocd login --sso` leaves it.
package testsso

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Provider renews refresh token Refresh, once, with a new id_token (valid
// for an hour) and refresh token Refresh+"-next"; it refuses any other as
// Dex does a claimed one. Other requests go to the server it stands
// beside.
type Provider struct {
	URL     string
	Refresh string

	mu     sync.Mutex
	issued string
}

// Issued is the last id_token the provider gave.
func (p *Provider) Issued() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.issued
}

// Start serves the provider, and server for every other path.
func Start(t testing.TB, refresh string, server http.Handler) *Provider {
	t.Helper()
	p := &Provider{Refresh: refresh}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/settings":
			fmt.Fprintf(w, `{"url":%q,"dexConfig":{"connectors":[{"type":"github","name":"GitHub"}]}}`, p.URL)
		case "/api/dex/.well-known/openid-configuration":
			fmt.Fprintf(w, `{"issuer":"%s/api/dex","token_endpoint":"%s/api/dex/token"}`, p.URL, p.URL)
		case "/api/dex/token":
			p.token(w, r)
		default:
			server.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.PostFormValue("grant_type") != "refresh_token" || r.PostFormValue("client_id") != "argo-cd-cli" || r.PostFormValue("refresh_token") != p.Refresh {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant","error_description":"refresh token is invalid or has already been claimed"}`))
		return
	}
	p.issued = JWT(time.Now().Add(time.Hour), "alice")
	p.Refresh += "-next"
	fmt.Fprintf(w, `{"access_token":"a","token_type":"bearer","id_token":%q,"refresh_token":%q}`, p.issued, p.Refresh)
}

// JWT is an unsigned token of sub that expires at exp: enough for a
// client, which reads exp without verifying it.
func JWT(exp time.Time, sub string) string {
	enc := base64.RawURLEncoding.EncodeToString
	payload, _ := json.Marshal(map[string]any{"sub": sub, "exp": exp.Unix()})
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc(payload) + ".sig"
}

// WriteConfig writes dir/config as `argocd login --sso server
// --plaintext` leaves it, and returns its path.
func WriteConfig(t testing.TB, dir, server, token, refresh string) string {
	t.Helper()
	cfg := fmt.Sprintf(`contexts:
- name: sso
  server: %[1]s
  user: %[1]s
current-context: sso
prompts-enabled: false
servers:
- grpc-web-root-path: ""
  plain-text: true
  server: %[1]s
users:
- auth-token: %[2]s
  name: %[1]s
  refresh-token: %[3]s
`, server, token, refresh)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
