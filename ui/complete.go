package ui

import (
	"fmt"
	"strings"
)

// completion is the tab cycle of the ":" prompt: the suggestions that begin
// with what was typed before the first tab. Tab moves to the next one,
// shift+tab back, and any other key ends the cycle (the next tab completes
// what is typed then).
type completion struct {
	matches []string
	at      int
}

// cycleCompletion puts the next (step 1) or previous (step -1) match of the
// typed text in the prompt.
func (a *App) cycleCompletion(step int) {
	c := &a.completion
	if c.matches == nil {
		typed := strings.ToLower(a.input.Value())
		for _, s := range a.input.AvailableSuggestions() {
			if strings.HasPrefix(strings.ToLower(s), typed) {
				c.matches = append(c.matches, s)
			}
		}
		if len(c.matches) == 0 {
			return
		}
		c.at = -1
		if step < 0 {
			c.at = 0
		}
	}
	c.at = (c.at + step + len(c.matches)) % len(c.matches)
	a.input.SetValue(c.matches[c.at])
	a.input.CursorEnd()
}

// completionNote tells where the cycle is, "" when there is none or nothing
// to cycle through.
func (a *App) completionNote() string {
	c := a.completion
	if len(c.matches) < 2 {
		return ""
	}
	return fmt.Sprintf("  %d of %d: tab next, shift+tab back", c.at+1, len(c.matches))
}
