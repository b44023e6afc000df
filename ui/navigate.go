package ui

import (
	tea "charm.land/bubbletea/v2"
)

// opener is a screen to open, named by what it shows: a screen says what
// to open, App builds and pushes it, so that no screen needs to know how
// another is made.
type opener interface{ open(a *App) tea.Cmd }

// open opens target over the others at once: the next key, typed ahead,
// already goes to it.
func (a *App) open(target opener) tea.Cmd { return target.open(a) }

// openMsg opens a screen from an answer that comes later (a pod picked in
// a resource tree whose log is read).
type openMsg struct{ target opener }

// navigate is the command that opens target when it runs.
func navigate(target opener) tea.Cmd {
	return func() tea.Msg { return openMsg{target: target} }
}
