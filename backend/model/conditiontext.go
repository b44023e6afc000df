package model

import (
	"strings"
	"time"
)

// FirstLine is s up to its first newline: a controller's message as one
// row of the list shows it (the whole text stays on the unit).
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// LatestCondition is when the newest of the conditions last changed.
func LatestCondition(cs []Condition) time.Time {
	var out time.Time
	for _, c := range cs {
		if c.Since.After(out) {
			out = c.Since
		}
	}
	return out
}
