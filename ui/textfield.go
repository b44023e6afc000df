package ui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// updateField passes msg to a text field. Every field goes through here:
// bubbles' textinput (v2.1 and v2.2) reads past its value when the word
// deleted forward (alt+d, alt+delete, ctrl+delete) is the field's last
// character with the cursor on it, and the workbench crashed. That one
// case is done here: the last character is deleted, as the key means.
func updateField(in textinput.Model, msg tea.Msg) (textinput.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && in.Focused() && key.Matches(k, in.KeyMap.DeleteWordForward) {
		if r := []rune(in.Value()); len(r) > 0 && in.Position() == len(r)-1 {
			in.SetValue(string(r[:len(r)-1]))
			in.CursorEnd()
			return in, nil
		}
	}
	return in.Update(msg)
}
