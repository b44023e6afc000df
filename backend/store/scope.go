package store

import "github.com/driftdeck/driftdeck/backend/model"

// Scope is the set of units one watch covers: one engine in one context, in one
// namespace or (Namespace == "") in all.
type Scope struct {
	Context   string
	Engine    model.Engine
	Namespace string
}

// Contains reports whether the key lies in the scope.
func (s Scope) Contains(k model.Key) bool {
	return k.Context == s.Context && k.Engine == s.Engine && (s.Namespace == "" || k.Namespace == s.Namespace)
}
