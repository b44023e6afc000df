package argodiff

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"
)

// credential is the token a ServerConfig sends, and what renews it: the
// refresh token an SSO login left in the argocd CLI's config file, and the
// file and user entry it is written back to.
type credential struct {
	// renewing serialises renewals; mu guards the fields.
	renewing   sync.Mutex
	mu         sync.Mutex
	token      string
	refresh    string
	file, user string
}

func (c *credential) get() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.token
}

// ErrCannotRenew: the token did not come with a refresh token (a local
// account's, an API token, one given by flag or environment).
var ErrCannotRenew = errors.New("the token has no refresh token to renew it with")

// LoginExpired is an SSO login whose token expired and could not be renewed.
type LoginExpired struct {
	Server string
	Err    error
}

func (e *LoginExpired) Error() string {
	return fmt.Sprintf("the Argo CD login to %s expired and could not be renewed (%v): run `argocd login --sso %s`", e.Server, e.Err, LoginArgs(e.Server))
}

func (e *LoginExpired) Unwrap() error { return e.Err }

// LoginArgs is the server as `argocd login` takes it: host[:port], or
// --port-forward for the server argocd --port-forward logs in to.
func LoginArgs(server string) string {
	if server == PortForwardServer {
		return "--port-forward"
	}
	if _, rest, ok := strings.Cut(server, "://"); ok {
		return strings.TrimSuffix(rest, "/")
	}
	return server
}

// expired tells whether a JWT's exp has passed; a token that is no JWT, or
// has no exp, is taken as valid (the server judges it).
func expired(token string, now time.Time) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return false
	}
	var claims struct {
		Exp float64 `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.Exp == 0 {
		return false
	}
	return now.After(time.Unix(int64(claims.Exp), 0))
}

// RenewExpired renews the token before it is used when it has expired and
// the argocd CLI left a refresh token for it, as the CLI does before each
// command.
func (c *ServerConfig) RenewExpired(ctx context.Context) error {
	c.cred.mu.Lock()
	due := c.cred.refresh != "" && expired(c.cred.token, time.Now())
	c.cred.mu.Unlock()
	if !due {
		return nil
	}
	return c.Renew(ctx, "")
}

// Renew redeems the refresh token for a new token at the SSO provider the
// server names (its own Dex, or the OIDC issuer of its settings), and writes
// both back to the argocd CLI's config file. ErrCannotRenew when there is
// no refresh token; *LoginExpired when the provider would not renew it.
// rejected is the token the server rejected: when another request renewed
// it meanwhile, it is not renewed again.
func (c *ServerConfig) Renew(ctx context.Context, rejected string) error {
	c.cred.renewing.Lock()
	defer c.cred.renewing.Unlock()
	c.cred.mu.Lock()
	current, old := c.cred.token, c.cred.refresh
	c.cred.mu.Unlock()
	if old == "" {
		return ErrCannotRenew
	}
	if rejected != "" && rejected != current {
		return nil
	}
	token, refresh, err := c.redeem(ctx, old)
	if err != nil {
		return &LoginExpired{Server: c.Server, Err: err}
	}
	if refresh == "" {
		refresh = old // the provider keeps the old one valid
	}
	if err := writeBack(c.cred.file, c.cred.user, token, refresh); err != nil {
		return fmt.Errorf("the Argo CD login to %s was renewed, but the argocd config could not be updated: %w", c.Server, err)
	}
	c.cred.mu.Lock()
	c.cred.token, c.cred.refresh = token, refresh
	c.cred.mu.Unlock()
	return nil
}

// redeem is the refresh-token grant at the server's SSO provider.
func (c *ServerConfig) redeem(ctx context.Context, refresh string) (token, newRefresh string, err error) {
	hc, err := c.HTTPClient()
	if err != nil {
		return "", "", err
	}
	issuer, clientID, err := c.ssoProvider(ctx, hc)
	if err != nil {
		return "", "", err
	}
	var discovery struct {
		TokenEndpoint string `json:"token_endpoint"`
	}
	if err := getJSON(ctx, hc, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration", &discovery); err != nil {
		return "", "", fmt.Errorf("the SSO provider %s: %w", issuer, err)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, discovery.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return "", "", redactURLError(err)
	}
	defer resp.Body.Close()
	var answer struct {
		IDToken      string `json:"id_token"`
		RefreshToken string `json:"refresh_token"`
		Error        string `json:"error"`
		Description  string `json:"error_description"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&answer)
	switch {
	case resp.StatusCode != http.StatusOK:
		return "", "", fmt.Errorf("the SSO provider refused the refresh token: %d %s %s", resp.StatusCode, answer.Error, answer.Description)
	case answer.IDToken == "":
		return "", "", errors.New("the SSO provider answered without an id_token")
	}
	return answer.IDToken, answer.RefreshToken, nil
}

// ssoProvider is the issuer and client the argocd CLI renews at: the OIDC
// config of the server's settings (its CLI client when it names one), else
// the server's own Dex with the argocd CLI's client.
func (c *ServerConfig) ssoProvider(ctx context.Context, hc *http.Client) (issuer, clientID string, err error) {
	req, err := c.Request(ctx, http.MethodGet, nil, "api", "v1", "settings")
	if err != nil {
		return "", "", err
	}
	var set struct {
		URL  string `json:"url"`
		OIDC *struct {
			Issuer      string `json:"issuer"`
			ClientID    string `json:"clientID"`
			CLIClientID string `json:"cliClientID"`
		} `json:"oidcConfig"`
		Dex *struct {
			Connectors []any `json:"connectors"`
		} `json:"dexConfig"`
	}
	if err := doJSON(hc, req, &set); err != nil {
		return "", "", fmt.Errorf("reading the server's SSO settings: %w", err)
	}
	switch {
	case set.OIDC != nil && set.OIDC.Issuer != "":
		clientID = set.OIDC.CLIClientID
		if clientID == "" {
			clientID = set.OIDC.ClientID
		}
		return set.OIDC.Issuer, clientID, nil
	case set.Dex != nil && len(set.Dex.Connectors) > 0:
		return strings.TrimSuffix(set.URL, "/") + "/api/dex", "argo-cd-cli", nil
	}
	return "", "", errors.New("the server has no SSO configured")
}

func getJSON(ctx context.Context, hc *http.Client, u string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	return doJSON(hc, req, out)
}

func doJSON(hc *http.Client, req *http.Request, out any) error {
	resp, err := hc.Do(req)
	if err != nil {
		return redactURLError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d", req.URL.Path, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out)
}

// writeBack stores a renewed token and refresh token in the user entry of
// the argocd CLI's config file, leaving the rest as it is, through a file
// only its owner may read, renamed over the old one.
func writeBack(path, user, token, refresh string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	users, _ := doc["users"].([]any)
	found := false
	for _, u := range users {
		if m, ok := u.(map[string]any); ok && m["name"] == user {
			m["auth-token"], m["refresh-token"], found = token, refresh, true
		}
	}
	if !found {
		return fmt.Errorf("user %q is no longer in the file", user)
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
