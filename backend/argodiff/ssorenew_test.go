package argodiff

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/testsso"
)

// An SSO login's expired token is renewed with its refresh token at the
// server's Dex, as the argocd CLI does, and both are written back to the
// argocd config, the rest of it kept; a token still valid is left alone.
func TestAnExpiredSSOTokenIsRenewedAndWrittenBack(t *testing.T) {
	sso := testsso.Start(t, "refresh-1", http.NotFoundHandler())
	host := strings.TrimPrefix(sso.URL, "http://")
	path := testsso.WriteConfig(t, t.TempDir(), host, testsso.JWT(time.Now().Add(-time.Minute), "alice"), "refresh-1")
	cfg, err := LoadServerConfig(ServerFlags{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.RenewExpired(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cfg.cred.get() != sso.Issued() || sso.Issued() == "" {
		t.Fatalf("the token after renewal is not the new id_token")
	}
	again, err := LoadServerConfig(ServerFlags{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if again.cred.get() != sso.Issued() || again.cred.refresh != "refresh-1-next" || !again.PlainText {
		t.Errorf("the argocd config after renewal: token renewed %v, refresh %q, plain-text %v", again.cred.get() == sso.Issued(), again.cred.refresh, again.PlainText)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("the argocd config is %s after renewal, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "prompts-enabled: false") {
		t.Errorf("renewal lost the rest of the config:\n%s", data)
	}
	// Valid now: nothing is asked of the provider.
	issued := sso.Issued()
	if err := again.RenewExpired(context.Background()); err != nil || sso.Issued() != issued {
		t.Errorf("a valid token was renewed: %v", err)
	}
}

// A refresh token the provider refuses ends in one message that says to
// log in again with SSO; the old token is kept. A token given by flag has
// no refresh token: there is nothing to renew.
func TestARefusedRefreshSaysToLogInWithSSO(t *testing.T) {
	sso := testsso.Start(t, "refresh-1", http.NotFoundHandler())
	host := strings.TrimPrefix(sso.URL, "http://")
	old := testsso.JWT(time.Now().Add(-time.Minute), "alice")
	cfg, err := LoadServerConfig(ServerFlags{ConfigPath: testsso.WriteConfig(t, t.TempDir(), host, old, "refresh-claimed")})
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.RenewExpired(context.Background())
	var expired *LoginExpired
	if !errors.As(err, &expired) || !strings.Contains(err.Error(), "argocd login --sso "+host) || !strings.Contains(err.Error(), "already been claimed") {
		t.Fatalf("got %v; want the login expired, saying to run argocd login --sso %s", err, host)
	}
	if strings.Contains(err.Error(), "refresh-claimed") || cfg.cred.get() != old {
		t.Errorf("the message shows the refresh token, or the old token was dropped: %v", err)
	}
	flagged, err := LoadServerConfig(ServerFlags{ConfigPath: testsso.WriteConfig(t, t.TempDir(), host, old, "refresh-1"), Token: old})
	if err != nil {
		t.Fatal(err)
	}
	if err := flagged.Renew(context.Background(), ""); !errors.Is(err, ErrCannotRenew) {
		t.Errorf("a token given by flag: %v, want ErrCannotRenew", err)
	}
}
