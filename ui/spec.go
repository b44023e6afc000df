package ui

import (
	"github.com/driftdeck/driftdeck/backend/actions"
)

// specs is the backend's table of action kinds, the one source of keys,
// help text, bulk and destructiveness.
func specs() []actions.Spec { return actions.Specs() }

// specOf describes a kind; an unknown one counts as destructive, and
// acts on one unit.
func specOf(k actions.Kind) actions.Spec {
	if s, ok := actions.SpecOf(k); ok {
		return s
	}
	return actions.Spec{Kind: k, Destructive: true}
}
