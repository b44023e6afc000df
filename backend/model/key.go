package model

import (
	"fmt"
	"strings"
)

// Engine names the reconciler kind of a unit, in the words of the command line.
type Engine string

const (
	EngineArgoCD        Engine = "argocd"
	EnginePulumi        Engine = "pulumi"
	EngineKustomization Engine = "kustomization"
	EngineHelmRelease   Engine = "helmrelease"
	EngineTerraform     Engine = "terraform"
	// EngineRoot is a Terraform or OpenTofu root module outside the cluster,
	// run by hand or from CI: its units are in no context.
	EngineRoot Engine = "root"
	// EngineApplicationSet is an Argo CD ApplicationSet: no reconciler of its
	// own, the parent row of the Applications it generates. Not in Engines,
	// which lists the engines that reconcile.
	EngineApplicationSet Engine = "applicationset"
)

// Engines lists every engine in display order.
var Engines = []Engine{EngineArgoCD, EnginePulumi, EngineKustomization, EngineHelmRelease, EngineTerraform, EngineRoot}

// ClusterEngines lists the engines whose units are objects of a cluster,
// in display order: what a context may have installed or not.
func ClusterEngines() []Engine {
	var out []Engine
	for _, e := range Engines {
		if e.InCluster() {
			out = append(out, e)
		}
	}
	return out
}

// InCluster tells whether the engine's units are objects of a cluster
// (every engine but the root modules).
func (e Engine) InCluster() bool { return e != EngineRoot }

// Key identifies a unit. Names are unique only per cluster, namespace and kind,
// so all four take part.
type Key struct {
	Context   string
	Engine    Engine
	Namespace string
	Name      string
}

// String renders the key as the command line names units:
// <engine>/<namespace>/<name>, prefixed by "<context>:" when a context is set.
func (k Key) String() string {
	s := string(k.Engine) + "/" + k.Namespace + "/" + k.Name
	if k.Context != "" {
		return k.Context + ":" + s
	}
	return s
}

// Ref is the key without its context: what a user types.
func (k Key) Ref() string { return string(k.Engine) + "/" + k.Namespace + "/" + k.Name }

// ParseRef parses "[context:]engine/namespace/name".
func ParseRef(s string) (Key, error) {
	var k Key
	rest := s
	if i := strings.Index(s, ":"); i >= 0 {
		k.Context, rest = s[:i], s[i+1:]
		if k.Context == "" {
			return Key{}, fmt.Errorf("unit %q: empty context before ':'", s)
		}
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return Key{}, fmt.Errorf("unit %q: want <engine>/<namespace>/<name>, e.g. argocd/argocd/guestbook", s)
	}
	e, err := ParseEngine(parts[0])
	if err != nil {
		return Key{}, fmt.Errorf("unit %q: %w", s, err)
	}
	k.Engine, k.Namespace, k.Name = e, parts[1], parts[2]
	return k, nil
}

// CompareKeys orders keys by context, engine, namespace, name.
func CompareKeys(a, b Key) int {
	if c := strings.Compare(a.Context, b.Context); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Engine), string(b.Engine)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// InKeyOrderSince reports whether units are in key order, given that prev
// is: two neighbours found at the same places in prev are not compared
// again, so that checking a snapshot that differs from the last in a few
// units costs a pointer comparison per unit, not a key comparison.
func InKeyOrderSince(units, prev []*Unit) bool {
	for i := 1; i < len(units); i++ {
		if i < len(prev) && units[i] == prev[i] && units[i-1] == prev[i-1] {
			continue
		}
		if CompareKeys(units[i-1].Key, units[i].Key) > 0 {
			return false
		}
	}
	return true
}
