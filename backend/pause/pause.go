// Package pause defines the annotations with which driftdeck records a pause on
// an object, so that anybody (and any later driftdeck) can see who paused it,
// why, until when, and restore exactly what was there before.
package pause

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// The annotations of a pause. Previous holds the exact JSON of the state the
// pause replaced ("null" when the field was absent).
const (
	AnnotationBy       = "driftdeck.io/paused-by"
	AnnotationReason   = "driftdeck.io/paused-reason"
	AnnotationAt       = "driftdeck.io/paused-at"
	AnnotationUntil    = "driftdeck.io/paused-until"
	AnnotationMode     = "driftdeck.io/paused-mode"
	AnnotationPrevious = "driftdeck.io/paused-previous"
	// AnnotationOwnerHold records the ignoreApplicationDifferences entry a
	// pause added to the owning ApplicationSet (ADR 0014), so that resume
	// removes exactly that entry.
	AnnotationOwnerHold = "driftdeck.io/paused-owner-hold"
)

// Modes of a pause.
const (
	ModeAutoSync = "auto-sync" // Argo CD: automated sync switched off
	ModeSelfHeal = "self-heal" // Argo CD: only self-heal switched off
	ModeSuspend  = "suspend"   // Flux/tofu: spec.suspend set
	ModePreview  = "preview"   // Pulumi Stack: spec.preview set, nothing applied
)

// Annotations lists every pause annotation, for removal on resume.
var Annotations = []string{AnnotationBy, AnnotationReason, AnnotationAt, AnnotationUntil, AnnotationMode, AnnotationPrevious, AnnotationOwnerHold}

// Read returns the pause recorded in the annotations, or nil when there is none.
// A pause with an unreadable timestamp is still returned, with the error.
func Read(ann map[string]string) (*model.PauseRecord, []string) {
	by, ok := ann[AnnotationBy]
	if !ok {
		if _, prev := ann[AnnotationPrevious]; !prev {
			return nil, nil
		}
	}
	p := &model.PauseRecord{
		By:       by,
		Reason:   ann[AnnotationReason],
		Mode:     ann[AnnotationMode],
		Previous: ann[AnnotationPrevious],
	}
	var errs []string
	if s := ann[AnnotationAt]; s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			errs = append(errs, "metadata.annotations."+AnnotationAt+": not a timestamp")
		}
		p.At = t
	}
	if s := ann[AnnotationUntil]; s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			errs = append(errs, "metadata.annotations."+AnnotationUntil+": not a timestamp")
		}
		p.Until = t
	}
	return p, errs
}
