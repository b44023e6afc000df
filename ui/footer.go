package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
)

// hint is one key of a footer, and how long it stays when the window is
// too narrow for all: the lowest keep goes first.
type hint struct {
	key, desc string
	keep      int
}

// How long a footer's hints stay, highest last to go.
const (
	keepLeast  = iota // known to everyone (quit)
	keepLow           // listed in the help too (sort, tree, mark)
	keepMid           // the keys that open things
	keepHigh          // what the row under the cursor can do now, and / and :
	keepAlways        // open, back and the help, which names every other key
)

func hintOf(b key.Binding, keep int) hint {
	h := b.Help()
	return hint{key: h.Key, desc: h.Desc, keep: keep}
}

func hintsOf(keep int, bs ...key.Binding) []hint {
	var out []hint
	for _, b := range bs {
		out = append(out, hintOf(b, keep))
	}
	return out
}

// fitHints draws a footer in its order, leaving out the hints kept least
// (the rightmost first) until the rest fits the window: a key is named in
// full or not at all, and the help names all of them.
func (a *App) fitHints(hs []hint) string {
	hs = slices.Clone(hs)
	for hintsWidth(hs) > a.width {
		drop := 0
		for i, h := range hs {
			if h.keep <= hs[drop].keep {
				drop = i
			}
		}
		if hs[drop].keep == keepAlways {
			break // cut with … by hints
		}
		hs = slices.Delete(hs, drop, drop+1)
	}
	var pairs []string
	for _, h := range hs {
		pairs = append(pairs, h.key, h.desc)
	}
	return a.hints(pairs...)
}

// hintsWidth is the width hints draws them in.
func hintsWidth(hs []hint) int {
	w := 0
	for i, h := range hs {
		if i > 0 {
			w += 2
		}
		w += ansi.StringWidth(h.key) + 1 + ansi.StringWidth(h.desc)
	}
	return w
}

// actionHintsOf are the action keys of what the unit can do now, each with
// its name.
func (a *App) actionHintsOf(u *model.Unit) []hint {
	return hintsOf(keepHigh, a.actionHints(u)...)
}
