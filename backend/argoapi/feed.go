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

// Applications lists every Application the user may get.
func (c *Client) Applications(ctx context.Context) ([]map[string]any, error) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := c.getJSON(ctx, nil, &list, "api", "v1", "applications"); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// maxEvent bounds one event of the feed (one Application, its status with
// every resource included).
const maxEvent = 64 << 20

// Watch streams the changes after resourceVersion to fn, until ctx ends
// (nil) or the stream breaks (why); from no version, the server first sends
// every Application as it is now (ADDED). Events of Applications the user
// may not get are not sent by the server.
func (c *Client) Watch(ctx context.Context, resourceVersion string, fn func(Event)) error {
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
				Type        string         `json:"type"`
				Application map[string]any `json:"application"`
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
		case line.Result != nil && line.Result.Application != nil:
			fn(Event{Type: line.Result.Type, App: line.Result.Application})
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
