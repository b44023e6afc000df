package ui

import (
	tea "charm.land/bubbletea/v2"
)

// openMsg asks for a screen over the others. A screen says what to open;
// App builds and pushes it (as pug's NavigationMsg), so that no screen
// needs to know how another is made.
type openMsg struct{ target opener }

// opener is what can be opened: it builds its screen, pushes it and
// returns the screen's first command.
type opener interface{ open(a *App) tea.Cmd }

// navigate is the command that opens target.
func navigate(target opener) tea.Cmd {
	return func() tea.Msg { return openMsg{target: target} }
}
