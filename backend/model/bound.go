package model

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A unit lives in the store for as long as driftdeck runs, so what it keeps
// of an object must not grow with the object: a controller may write a
// 10 MB condition message or a history of thousands of entries. The detail
// view's YAML tab reads the whole object when asked.
const (
	// TextLimit is the most bytes of one text from the cluster (a message,
	// a reason) that a unit keeps.
	TextLimit = 4 << 10
	// HistoryLimit is the most history entries a unit keeps (the newest).
	HistoryLimit = 100
)

// Clip returns s cut to TextLimit bytes at a rune boundary, followed by a
// visible marker with the number of bytes cut. The result never shares
// memory with s: a short piece of a huge decoded string (its first line)
// would otherwise keep the whole string alive.
func Clip(s string) string {
	if len(s) <= TextLimit {
		return strings.Clone(s)
	}
	cut := TextLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

// Bounded clips every text the unit keeps from the object's status and caps
// its histories, in place, and returns u. It is applied where units enter
// the store.
func Bounded(u *Unit) *Unit {
	if u == nil {
		return nil
	}
	for _, s := range []*string{&u.RunReason, &u.StuckRule, &u.Persisting, &u.Window, &u.SyncNative, &u.HealthNative, &u.Desired, &u.Applied} {
		*s = Clip(*s)
	}
	for i := range u.ReadErrors {
		u.ReadErrors[i] = Clip(u.ReadErrors[i])
	}
	if a := u.Argo; a != nil {
		a.PhaseMessage = Clip(a.PhaseMessage)
		clipConditions(a.Conditions)
		if n := len(a.HistoryIDs); n > HistoryLimit {
			a.HistoryIDs = append([]int64(nil), a.HistoryIDs[n-HistoryLimit:]...) // oldest first: keep the end
		}
	}
	if s := u.Stack; s != nil {
		s.LastMessage = Clip(s.LastMessage)
		clipConditions(s.Conditions)
	}
	if f := u.Flux; f != nil {
		boundFlux(f)
	}
	if t := u.Tofu; t != nil {
		boundFlux(&t.FluxFacts)
	}
	return u
}

func boundFlux(f *FluxFacts) {
	for _, s := range []*string{&f.LastAttempted, &f.LastApplied, &f.LastHandledAt, &f.RequestedAt} {
		*s = Clip(*s)
	}
	clipConditions(f.Conditions)
	if h := f.Helm; h != nil && len(h.History) > HistoryLimit {
		h.History = append([]HelmRelease(nil), h.History[:HistoryLimit]...) // newest first
	}
}

func clipConditions(cs []Condition) {
	for i := range cs {
		cs[i].Message = Clip(cs[i].Message)
		cs[i].Reason = Clip(cs[i].Reason)
	}
}
