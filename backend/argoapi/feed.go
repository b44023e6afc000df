package argoapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
)

// Event is one change of the live feed: ADDED, MODIFIED or DELETED.
type Event struct {
	Type string
	App  map[string]any
}

// Decoder decodes one Application's JSON (argocd.DecodeSlim keeps what
// the model reads); nil, or one that fails, decodes it whole.
type Decoder func([]byte) (map[string]any, error)

func (d Decoder) app(raw []byte) (map[string]any, error) {
	if d != nil {
		if app, err := d(raw); err == nil {
			return app, nil
		}
	}
	var app map[string]any
	err := json.Unmarshal(raw, &app)
	return app, err
}

// Applications lists every Application the user may get, each decoded by
// decode as it is read: the list of a large instance is never held whole.
func (c *Client) Applications(ctx context.Context, decode Decoder) ([]map[string]any, error) {
	resp, err := c.get(ctx, c.requests, nil, "api", "v1", "applications")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	bad := func(err error) error {
		return fmt.Errorf("Argo CD API server %s: the list of Applications is not the expected JSON: %w", c.cfg.Server, err)
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad(fmt.Errorf("no object (%v)", err))
	}
	var apps []map[string]any
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		if key != "items" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, bad(err)
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t == nil {
			continue // "items": null, no Application
		} else if t != json.Delim('[') {
			return nil, bad(fmt.Errorf("items is not a list"))
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, bad(err)
			}
			app, err := decode.app(raw)
			if err != nil {
				return nil, bad(err)
			}
			apps = append(apps, app)
		}
		if _, err := dec.Token(); err != nil {
			return nil, bad(err)
		}
	}
	return apps, nil
}

// maxEvent bounds one event of the feed (one Application, its status with
// every resource included).
const maxEvent = 64 << 20

// Watch streams the changes after resourceVersion to fn, until ctx ends
// (nil) or the stream breaks (why); from no version, the server first sends
// every Application as it is now (ADDED). Events of Applications the user
// may not get are not sent by the server.
func (c *Client) Watch(ctx context.Context, resourceVersion string, decode Decoder, fn func(Event)) error {
	q := url.Values{}
	if resourceVersion != "" {
		q.Set("resourceVersion", resourceVersion)
	}
	resp, err := c.get(ctx, c.stream, q, "api", "v1", "stream", "applications")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 0, 64<<10), maxEvent)
	for lines.Scan() {
		var line struct {
			Result *struct {
				Type        string          `json:"type"`
				Application json.RawMessage `json:"application"`
			} `json:"result"`
			Error *struct {
				Code    int    `json:"http_code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			return fmt.Errorf("Argo CD API server %s: a feed line is not the expected JSON: %w", c.cfg.Server, err)
		}
		switch {
		case line.Error != nil:
			return &Error{Server: c.cfg.Server, Status: line.Error.Code, Message: line.Error.Message}
		case line.Result != nil && len(line.Result.Application) > 0 && string(line.Result.Application) != "null":
			app, err := decode.app(line.Result.Application)
			if err != nil {
				return fmt.Errorf("Argo CD API server %s: an Application of the feed is not the expected JSON: %w", c.cfg.Server, err)
			}
			fn(Event{Type: line.Result.Type, App: app})
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := lines.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("Argo CD API server %s: the live feed broke: %w", c.cfg.Server, err)
	}
	return fmt.Errorf("Argo CD API server %s: the live feed ended", c.cfg.Server)
}
