package argoapi

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// canITTL is how long an answer of can-i is taken as still true: Argo CD's
// policy changes rarely, and a write asks again with the server itself
// deciding.
const canITTL = 30 * time.Second

// canICache keeps can-i answers per resource, action and object.
type canICache struct {
	mu      sync.Mutex
	answers map[string]canIAnswer
}

type canIAnswer struct {
	yes bool
	at  time.Time
}

// RBACName is how Argo CD's RBAC names an Application:
// <project>/<name>, or <project>/<namespace>/<name> for one outside Argo
// CD's own namespace.
func RBACName(project, namespace, name string, outside bool) string {
	if project == "" {
		project = "default"
	}
	if outside {
		return project + "/" + namespace + "/" + name
	}
	return project + "/" + name
}

// CanI asks the server whether the user may do action on resource's
// object (as RBACName names an Application), as `argocd account can-i`
// does; answers are kept for a short while.
func (c *Client) CanI(ctx context.Context, resource, action, object string) (bool, error) {
	key := resource + " " + action + " " + object
	c.canI.mu.Lock()
	a, ok := c.canI.answers[key]
	c.canI.mu.Unlock()
	if ok && time.Since(a.at) < canITTL {
		return a.yes, nil
	}
	var resp struct {
		Value string `json:"value"`
	}
	if err := c.send(ctx, http.MethodGet, nil, nil, &resp, "api", "v1", "account", "can-i", resource, action, object); err != nil {
		return false, err
	}
	yes := resp.Value == "yes"
	c.canI.mu.Lock()
	if c.canI.answers == nil {
		c.canI.answers = map[string]canIAnswer{}
	}
	c.canI.answers[key] = canIAnswer{yes: yes, at: time.Now()}
	c.canI.mu.Unlock()
	return yes, nil
}
