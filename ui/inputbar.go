package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/views/list"
)

type inputMode int

const (
	modeNormal inputMode = iota
	modeFilter
	modeCommand
)

// inputBar is the prompt at the bottom: ":" runs a command, "/" filters the
// list as it is typed. It keeps its own history and tab cycle, and answers
// what it asks of the others as a message: the list's filter, or the
// command line to run.
type inputBar struct {
	mode       inputMode
	input      textinput.Model
	history    []string
	historyPos int
	completion completion
	// filterWas is the filter in force when "/" opened, edited in place.
	filterWas string
}

// commandLineMsg is a ":" command as typed, to run.
type commandLineMsg string

func newInputBar() inputBar { return inputBar{input: textinput.New()} }

func (b *inputBar) open() bool { return b.mode != modeNormal }

// start opens the prompt with a value; a command prompt offers the
// suggestions.
func (b *inputBar) start(mode inputMode, value string, suggestions []string) tea.Cmd {
	b.mode = mode
	b.input.Reset()
	b.input.Prompt = ""
	b.input.SetValue(value)
	b.input.CursorEnd()
	b.input.ShowSuggestions = mode == modeCommand
	b.input.SetSuggestions(suggestions)
	if mode == modeCommand {
		b.input.Placeholder = "apps, stacks, flux, terraform, ns <name>, stuck, paused, freeze … (tab cycles through the completions)"
	} else {
		b.input.Placeholder = "text or regex over " + list.FilterFields + "; ! inverts; ^ and $ anchor to a field"
	}
	b.filterWas = ""
	if mode == modeFilter {
		b.filterWas = value
	}
	b.historyPos = len(b.history)
	b.completion = completion{}
	return b.input.Focus()
}

// note is what the prompt says after what is typed.
func (b *inputBar) note() string {
	if b.mode == modeCommand {
		return b.completionNote()
	}
	if b.filterWas == "" || b.input.Value() == "" {
		return "" // a new filter: the placeholder says what it matches
	}
	// "/" edits the filter in force rather than a new one: say so, and how
	// to start over.
	return "  editing the filter in force: enter keeps the edit, ctrl+u starts over, esc clears it"
}

// key handles a key typed in the prompt. The message is what it asks of
// the others: listFilterMsg while filtering, commandLineMsg on enter.
func (b *inputBar) key(msg tea.KeyPressMsg) (tea.Cmd, tea.Msg) {
	if k := msg.String(); b.mode == modeCommand && (k == "tab" || k == "shift+tab") {
		step := 1
		if k == "shift+tab" {
			step = -1
		}
		b.cycleCompletion(step)
		return nil, nil
	}
	b.completion = completion{}
	switch msg.String() {
	case "esc":
		mode := b.mode
		b.close()
		if mode == modeFilter {
			return nil, listFilterMsg{}
		}
		return nil, nil
	case "enter":
		value := strings.TrimSpace(b.input.Value())
		mode := b.mode
		b.close()
		if mode == modeFilter {
			return nil, listFilterMsg{text: value}
		}
		if value != "" && (len(b.history) == 0 || b.history[len(b.history)-1] != value) {
			b.history = append(b.history, value)
		}
		return nil, commandLineMsg(value)
	case "up":
		if b.mode == modeCommand && b.historyPos > 0 {
			b.historyPos--
			b.input.SetValue(b.history[b.historyPos])
			b.input.CursorEnd()
		}
		return nil, nil
	case "down":
		if b.mode == modeCommand && b.historyPos < len(b.history) {
			b.historyPos++
			value := ""
			if b.historyPos < len(b.history) {
				value = b.history[b.historyPos]
			}
			b.input.SetValue(value)
			b.input.CursorEnd()
		}
		return nil, nil
	}
	var cmd tea.Cmd
	b.input, cmd = updateField(b.input, msg)
	if b.mode == modeFilter {
		// Filter as you type: the list answers every keystroke.
		return cmd, listFilterMsg{text: b.input.Value()}
	}
	return cmd, nil
}

func (b *inputBar) close() {
	b.mode = modeNormal
	b.input.Blur()
}

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
func (b *inputBar) cycleCompletion(step int) {
	c := &b.completion
	if c.matches == nil {
		typed := strings.ToLower(b.input.Value())
		for _, s := range b.input.AvailableSuggestions() {
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
	b.input.SetValue(c.matches[c.at])
	b.input.CursorEnd()
}

// completionNote tells where the cycle is, "" when there is none or nothing
// to cycle through.
func (b *inputBar) completionNote() string {
	c := b.completion
	if len(c.matches) < 2 {
		return ""
	}
	return fmt.Sprintf("  %d of %d: tab next, shift+tab back", c.at+1, len(c.matches))
}
