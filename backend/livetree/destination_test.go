package livetree

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/kube"
)

func TestResolveFindsTheClusterThatHoldsTheLiveObjects(t *testing.T) {
	own, prod := &kube.Cluster{Context: "mgmt"}, &kube.Cluster{Context: "prod-admin"}
	clusters := func(name string) (*kube.Cluster, bool) {
		if name == "prod-admin" {
			return prod, true
		}
		return nil, false
	}
	app := func(server, name string) map[string]any {
		return map[string]any{"spec": map[string]any{"destination": map[string]any{"server": server, "name": name}}}
	}
	mapped := Destinations{ByServer: map[string]string{"https://prod.example.com:6443": "prod-admin"}, ByName: map[string]string{"prod": "prod-admin"}}
	cases := []struct {
		name string
		d    Destinations
		app  map[string]any
		want *kube.Cluster
	}{
		{"in-cluster server", Destinations{}, app(InClusterServer, ""), own},
		{"in-cluster name", Destinations{}, app("", InClusterName), own},
		{"mapped server, trailing slash", mapped, app("https://prod.example.com:6443/", ""), prod},
		{"mapped name", mapped, app("", "prod"), prod},
		{"name equal to a context", Destinations{}, app("", "prod-admin"), prod},
		{"unmapped", Destinations{}, app("https://prod.example.com:6443", ""), nil},
		{"mapped to a context not connected", Destinations{ByServer: map[string]string{"https://x": "elsewhere"}}, app("https://x", ""), nil},
		{"demo: every destination", Destinations{All: true}, app("https://prod.example.com:6443", ""), own},
	}
	for _, c := range cases {
		got, _, why := c.d.Resolve(c.app, own, clusters)
		if got != c.want {
			t.Errorf("%s: got %v, want %v (%s)", c.name, got, c.want, why)
		}
		if got == nil && !strings.Contains(why, "destinations:") {
			t.Errorf("%s: the note must say how to map it: %q", c.name, why)
		}
	}
}
