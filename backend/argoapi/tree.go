package argoapi

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
)

// ResourceTree is the nodes of the resource tree the controller keeps of
// the Application (what it sees live, on whichever cluster, with the
// health it computed), as the user may get them.
func (c *Client) ResourceTree(ctx context.Context, a App) ([]map[string]any, error) {
	var tree struct {
		Nodes []map[string]any `json:"nodes"`
	}
	return tree.Nodes, c.send(ctx, http.MethodGet, a.query(), nil, &tree, a.path("resource-tree")...)
}

// Events are the Kubernetes Events of the Application, as Argo CD's API
// server lists them to a user who may get it.
func (c *Client) Events(ctx context.Context, a App) ([]corev1.Event, error) {
	var list corev1.EventList
	return list.Items, c.send(ctx, http.MethodGet, a.query(), nil, &list, a.path("events")...)
}

// Projects lists the AppProjects the user may get (their sync windows).
func (c *Client) Projects(ctx context.Context) ([]map[string]any, error) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	return list.Items, c.send(ctx, http.MethodGet, nil, nil, &list, "api", "v1", "projects")
}

// ApplicationSets lists the ApplicationSets the user may get.
func (c *Client) ApplicationSets(ctx context.Context) ([]map[string]any, error) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	return list.Items, c.send(ctx, http.MethodGet, nil, nil, &list, "api", "v1", "applicationsets")
}
