package main

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
)

// keyCycle is one round of what a user does in the list: move, page, jump,
// type a filter and take it back, change the sort.
var keyCycle = []string{
	"j", "j", "j", "j", "j", "j", "j", "j", "pgdown", "pgdown", "pgdown",
	"k", "k", "k", "k", "pgup", "G", "k", "k", "g",
	"/", "p", "a", "y", "m", "e", "n", "t", "s", "backspace", "backspace", "backspace", "backspace", "esc",
	"o", "j", "j", "j", "o", "o",
}

// treeKeyCycle is the same round in the tree view, with a parent row
// folded and opened again (z) at the top.
var treeKeyCycle = append(slices.Clone(keyCycle), "g", "z", "z")

// filterText is typed one character at a time on the full fleet.
const filterText = "api-prod-0"

// key is the message a terminal's key press becomes.
func key(k string) tea.KeyPressMsg {
	switch k {
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// keyLabel groups a key of keyCycle by what it makes the list do.
func keyLabel(k string) string {
	switch k {
	case "j", "k", "pgdown", "pgup", "G", "g":
		return "move"
	case "o":
		return "sort"
	case "z":
		return "fold"
	}
	return "filter"
}

// typeKeys presses n keys, at most rate a second, each once the previous one
// is drawn (a person waits for the screen; a held key's repeats do not pile
// up either), so a key's latency is its own frame plus what it waits behind:
// a batch of changes or a tick being drawn.
func typeKeys(l *loop, cycle []string, n int, rate float64) int {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for i := range n {
		<-tick.C
		k := cycle[i%len(cycle)]
		l.press(key(k), keyLabel(k))
	}
	return n
}

// filterAndSort times, on the full fleet, opening the filter and typing each
// character of filterText, then each sort mode.
func filterAndSort(l *loop) (prefixes []time.Duration, sorts []sortTime) {
	l.do(key("esc"))
	l.do(key("g"))
	prefixes = append(prefixes, l.do(key("/")))
	for _, r := range filterText {
		prefixes = append(prefixes, l.do(key(string(r))))
	}
	l.do(key("esc"))
	for _, mode := range []string{"state", "age", "name"} {
		sorts = append(sorts, sortTime{Mode: mode, Took: l.do(key("o"))})
	}
	return prefixes, sorts
}
