package model

import "github.com/driftdeck/driftdeck/backend/objread"

// UnitFromObject starts the unit a reconciler's object is in context: its key,
// kind and the metadata every Kubernetes object has. The engine's converter
// fills in what is its own.
func UnitFromObject(context string, engine Engine, kind string, r *objread.Reader) *Unit {
	return &Unit{
		Key: Key{
			Context:   context,
			Engine:    engine,
			Namespace: r.Str("metadata", "namespace"),
			Name:      r.Str("metadata", "name"),
		},
		Kind:            kind,
		APIVersion:      r.Str("apiVersion"),
		UID:             r.Str("metadata", "uid"),
		ResourceVersion: r.Str("metadata", "resourceVersion"),
		Generation:      r.Int("metadata", "generation"),
		Created:         r.Time("metadata", "creationTimestamp"),
		Labels:          LabelsOf(r.StringMap("metadata", "labels")),
		Remediations:    r.Str("metadata", "annotations", AnnotationRemediationAttempts),
	}
}

// AnnotationRemediationAttempts is where the agent's policies count their
// attempts on a unit (JSON, by policy), so the count survives a restart or
// another replica taking over, and a person sees why remediation stopped.
const AnnotationRemediationAttempts = "driftdeck.io/remediation-attempts"
