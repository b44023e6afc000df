package argoapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// App names an Application as the API server addresses it: by name, with
// its namespace when it is not Argo CD's own (apps in any namespace).
type App struct {
	Namespace, Name string
}

func (a App) query() url.Values {
	q := url.Values{}
	if a.Namespace != "" {
		q.Set("appNamespace", a.Namespace)
	}
	return q
}

// body is a request's body naming the Application, with fields.
func (a App) body(fields map[string]any) map[string]any {
	fields["name"] = a.Name
	if a.Namespace != "" {
		fields["appNamespace"] = a.Namespace
	}
	return fields
}

func (a App) path(rest ...string) []string {
	return append([]string{"api", "v1", "applications", a.Name}, rest...)
}

// send sends method with body (nil: none) and decodes a 200 answer into out
// (nil: the answer is read and dropped).
func (c *Client) send(ctx context.Context, method string, query url.Values, body, out any, path ...string) error {
	req, err := c.cfg.Request(ctx, method, query, path...)
	if err != nil {
		return err
	}
	if method != http.MethodGet {
		// argocd-server refuses a write of any other type (415), against
		// cross-site requests; a DELETE without a body too.
		req.Header.Set("Content-Type", "application/json")
	}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.ContentLength = int64(len(b))
	}
	resp, err := c.do(c.requests, req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(out); err != nil {
		return fmt.Errorf("Argo CD API server %s: the answer to %s %s is not the expected JSON: %w", c.cfg.Server, method, req.URL.Path, err)
	}
	return nil
}

// Application is one Application, as the user may get it.
func (c *Client) Application(ctx context.Context, a App) (map[string]any, error) {
	var app map[string]any
	return app, c.send(ctx, http.MethodGet, a.query(), nil, &app, a.path()...)
}

// Refresh asks the controller to compare the Application again (level
// "normal" or "hard") and returns it once it has: the server waits.
func (c *Client) Refresh(ctx context.Context, a App, level string) (map[string]any, error) {
	q := a.query()
	q.Set("refresh", level)
	var app map[string]any
	return app, c.send(ctx, http.MethodGet, q, nil, &app, a.path()...)
}

// SyncRequest is the body of POST .../sync (ApplicationSyncRequest).
type SyncRequest struct {
	Name         string         `json:"name"`
	AppNamespace string         `json:"appNamespace,omitempty"`
	Revision     string         `json:"revision,omitempty"`
	Revisions    []string       `json:"revisions,omitempty"`
	DryRun       bool           `json:"dryRun,omitempty"`
	Prune        bool           `json:"prune,omitempty"`
	Strategy     map[string]any `json:"strategy,omitempty"`
	Resources    []any          `json:"resources,omitempty"`
	Infos        []any          `json:"infos,omitempty"`
	Retry        any            `json:"retryStrategy,omitempty"`
	SyncOptions  *SyncOptions   `json:"syncOptions,omitempty"`
}

// SyncOptions are a sync's options, as the API takes them.
type SyncOptions struct {
	Items []string `json:"items"`
}

// Sync starts a sync as the token's user; the server sets initiatedBy.
func (c *Client) Sync(ctx context.Context, a App, r SyncRequest) (map[string]any, error) {
	r.Name, r.AppNamespace = a.Name, a.Namespace
	var app map[string]any
	return app, c.send(ctx, http.MethodPost, nil, r, &app, a.path("sync")...)
}

// Rollback syncs the Application to its history entry id.
func (c *Client) Rollback(ctx context.Context, a App, id int64, prune, dryRun bool) (map[string]any, error) {
	body := a.body(map[string]any{"id": id, "prune": prune, "dryRun": dryRun})
	var app map[string]any
	return app, c.send(ctx, http.MethodPost, nil, body, &app, a.path("rollback")...)
}

// Terminate asks the controller to stop the running operation.
func (c *Client) Terminate(ctx context.Context, a App) error {
	return c.send(ctx, http.MethodDelete, a.query(), nil, nil, a.path("operation")...)
}

// Patch applies a JSON patch to the Application and returns it as written.
// The server applies the patch, its tests included, to a fresh read; only
// spec, labels, annotations and finalizers are written (ADR 0033).
func (c *Client) Patch(ctx context.Context, a App, jsonPatch []byte) (map[string]any, error) {
	body := a.body(map[string]any{"patch": string(jsonPatch), "patchType": "json"})
	var app map[string]any
	return app, c.send(ctx, http.MethodPatch, nil, body, &app, a.path()...)
}

// SyncWindow is a window of the Application's project that applies to it.
type SyncWindow struct {
	Kind       string `json:"kind"`
	Schedule   string `json:"schedule"`
	Duration   string `json:"duration"`
	ManualSync bool   `json:"manualSync"`
}

// Windows is the server's judgement of the sync windows that apply to an
// Application now.
type Windows struct {
	Active []SyncWindow `json:"activeWindows"`
	// CanSync: a manual sync is allowed now.
	CanSync bool `json:"canSync"`
}

// SyncWindows are the windows assigned to the Application and whether a
// manual sync may run now, as the server judges them.
func (c *Client) SyncWindows(ctx context.Context, a App) (Windows, error) {
	var w Windows
	return w, c.send(ctx, http.MethodGet, a.query(), nil, &w, a.path("syncwindows")...)
}
