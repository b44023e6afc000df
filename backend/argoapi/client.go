// Package argoapi reads Argo CD through its API server, under the user's
// Argo CD identity and RBAC: who the token is, the Applications it may
// get, and their changes as a stream.
package argoapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/driftdeck/driftdeck/backend/argodiff"
)

// Client talks to one Argo CD API server.
type Client struct {
	cfg *argodiff.ServerConfig
	// requests answer within the configured timeout; stream has none: a
	// live feed stays open for as long as it is read.
	requests, stream *http.Client
	canI             canICache
	only             Filter

	mu   sync.Mutex
	user string // the token's user, once known
}

// New is a client of the server cfg resolves to.
func New(cfg *argodiff.ServerConfig) (*Client, error) {
	hc, err := cfg.HTTPClient()
	if err != nil {
		return nil, err
	}
	stream := *hc
	stream.Timeout = 0
	return &Client{cfg: cfg, requests: hc, stream: &stream}, nil
}

// Config is the connection the client was made of.
func (c *Client) Config() *argodiff.ServerConfig { return c.cfg }

// Server names the server, as configured (never the token).
func (c *Client) Server() string { return c.cfg.Server }

// Error is the server's refusal, in Argo CD's own words.
type Error struct {
	Server string
	Status int
	// Message is the server's (the gRPC gateway's "message").
	Message string
}

func (e *Error) Error() string {
	hint := ""
	switch e.Status {
	case http.StatusUnauthorized:
		hint = fmt.Sprintf(": the token was rejected (expired or revoked): run `argocd login %s` (with --sso for an SSO login)", argodiff.LoginArgs(e.Server))
	case http.StatusForbidden:
		hint = " (Argo CD RBAC)"
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("Argo CD API server %s: %d %s%s", e.Server, e.Status, msg, hint)
}

// Unreachable is the server not answering at all (refused, no route, TLS
// failed): not a refusal of the user.
type Unreachable struct {
	Server string
	Err    error
}

func (e *Unreachable) Error() string {
	return fmt.Sprintf("Argo CD API server %s unreachable: %v", e.Server, e.Err)
}

func (e *Unreachable) Unwrap() error { return e.Err }

// Unauthorized tells whether err is the server rejecting the token.
func Unauthorized(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusUnauthorized
}

// PermissionDenied tells whether err is Argo CD's RBAC refusing.
func PermissionDenied(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusForbidden
}

// maxAnswer bounds an answer read whole: the list of every Application of
// a large instance is hundreds of megabytes at most.
const maxAnswer = 1 << 30

// do sends a request and returns the answer when it is 200. A token the
// server rejects is renewed once, when an SSO login of the argocd CLI left
// a refresh token for it, and the request sent again with it, as the
// argocd CLI does.
func (c *Client) do(client *http.Client, req *http.Request) (*http.Response, error) {
	resp, err := c.once(client, req)
	if !Unauthorized(err) || (req.Body != nil && req.GetBody == nil) {
		return resp, err
	}
	used := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	if err := c.renew(req.Context(), used, err); err != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	c.cfg.Authorize(again)
	return c.once(client, again)
}

// once sends a request once and returns the answer when it is 200.
func (c *Client) once(client *http.Client, req *http.Request) (*http.Response, error) {
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL repeats the query; the cause is enough
		}
		if req.Context().Err() != nil {
			return nil, err
		}
		return nil, &Unreachable{Server: c.cfg.Server, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		// A unary answer's error is {"message"}; a stream's, refused before
		// its first result, is {"error":{"message"}}.
		var gw struct {
			Message string `json:"message"`
			Error   struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(body, &gw)
		if gw.Message == "" {
			gw.Message = gw.Error.Message
		}
		return nil, &Error{Server: c.cfg.Server, Status: resp.StatusCode, Message: gw.Message}
	}
	return resp, nil
}

// get is the answer to a GET of path, when it is 200.
func (c *Client) get(ctx context.Context, client *http.Client, query url.Values, path ...string) (*http.Response, error) {
	req, err := c.cfg.Request(ctx, http.MethodGet, query, path...)
	if err != nil {
		return nil, err
	}
	return c.do(client, req)
}

// getJSON decodes the answer to a GET of path into out.
func (c *Client) getJSON(ctx context.Context, query url.Values, out any, path ...string) error {
	resp, err := c.get(ctx, c.requests, query, path...)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(out); err != nil {
		return fmt.Errorf("Argo CD API server %s: the answer to %s is not the expected JSON: %w", c.cfg.Server, resp.Request.URL.Path, err)
	}
	return nil
}

// User is the Argo CD user the token is, asked of the server once: the
// token's user does not change while it is valid.
func (c *Client) User(ctx context.Context) (string, error) {
	c.mu.Lock()
	user := c.user
	c.mu.Unlock()
	if user != "" {
		return user, nil
	}
	user, err := c.UserInfo(ctx)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.user = user
	c.mu.Unlock()
	return user, nil
}

// UserInfo is the Argo CD user the token is, as `argocd account
// get-user-info` names it.
func (c *Client) UserInfo(ctx context.Context) (string, error) {
	var info struct {
		LoggedIn bool   `json:"loggedIn"`
		Username string `json:"username"`
	}
	if err := c.getJSON(ctx, nil, &info, "api", "v1", "session", "userinfo"); err != nil {
		return "", err
	}
	if !info.LoggedIn {
		return "", &Error{Server: c.cfg.Server, Status: http.StatusUnauthorized, Message: "not logged in"}
	}
	return info.Username, nil
}

// renew renews the token used after the server rejected it (rejected, its
// 401), when an SSO login of the argocd CLI left a refresh token for it. It
// returns nil once renewed; else rejected, in the words of a login that
// expired when renewing it failed.
func (c *Client) renew(ctx context.Context, used string, rejected error) error {
	err := c.cfg.Renew(ctx, used)
	var expired *argodiff.LoginExpired
	switch {
	case err == nil:
		return nil
	case errors.As(err, &expired):
		return &renewFailed{rejected: rejected, expired: expired}
	}
	return rejected
}

// renewFailed is a rejected token that could not be renewed: it reads as
// the expired login and is still the server's rejection (Unauthorized).
type renewFailed struct {
	rejected error
	expired  *argodiff.LoginExpired
}

func (e *renewFailed) Error() string   { return e.expired.Error() }
func (e *renewFailed) Unwrap() []error { return []error{e.rejected, e.expired} }
