package ui

import (
	"testing"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// alt+d with the cursor on the reason's last character deletes it, and
// the dialog stays open: it crashed the workbench (found by random keys).
func TestDeletingTheWordForwardFromAFieldsLastCharacterDeletesIt(t *testing.T) {
	a, _ := newTestApp(t, 100, 30)
	selectUnit(t, a, "checkout")
	press(a, "p")
	typeText(a, "INC-1 abc")
	a.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	a.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt})
	d, ok := a.top().(*dialog)
	if !ok {
		t.Fatalf("the dialog closed:\n%s", plain(a))
	}
	if got := d.reason.Value(); got != "INC-1 ab" {
		t.Fatalf("alt+d on the last character left %q, want %q", got, "INC-1 ab")
	}
	a.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	a.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	a.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt})
	if got := d.reason.Value(); got != "INC-1 " {
		t.Fatalf("alt+d before a word's end deletes it to the end: %q, want %q", got, "INC-1 ")
	}
}

// fieldKeys are the keys a text field reads, its editing keys each way
// they can be typed, and text with spaces, wide and combining characters.
var fieldKeys = []tea.KeyPressMsg{
	{Code: tea.KeyLeft}, {Code: tea.KeyRight}, {Code: tea.KeyHome}, {Code: tea.KeyEnd},
	{Code: tea.KeyBackspace}, {Code: tea.KeyDelete}, {Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: tea.KeyTab},
	{Code: 'b', Mod: tea.ModCtrl}, {Code: 'f', Mod: tea.ModCtrl}, {Code: 'a', Mod: tea.ModCtrl}, {Code: 'e', Mod: tea.ModCtrl},
	{Code: 'h', Mod: tea.ModCtrl}, {Code: 'd', Mod: tea.ModCtrl}, {Code: 'k', Mod: tea.ModCtrl}, {Code: 'u', Mod: tea.ModCtrl},
	{Code: 'w', Mod: tea.ModCtrl}, {Code: 'n', Mod: tea.ModCtrl}, {Code: 'p', Mod: tea.ModCtrl},
	{Code: 'b', Mod: tea.ModAlt}, {Code: 'f', Mod: tea.ModAlt}, {Code: 'd', Mod: tea.ModAlt},
	{Code: tea.KeyLeft, Mod: tea.ModAlt}, {Code: tea.KeyRight, Mod: tea.ModAlt},
	{Code: tea.KeyLeft, Mod: tea.ModCtrl}, {Code: tea.KeyRight, Mod: tea.ModCtrl},
	{Code: tea.KeyBackspace, Mod: tea.ModAlt}, {Code: tea.KeyBackspace, Mod: tea.ModCtrl},
	{Code: tea.KeyDelete, Mod: tea.ModAlt}, {Code: tea.KeyDelete, Mod: tea.ModCtrl},
	{Code: 'x', Text: "x"}, {Code: ' ', Text: " "}, {Code: 'ぁ', Text: "ぁ"}, {Code: 0x0592, Text: "\u0592"},
	{Code: '\t', Text: "\t"}, {Code: 'a', Text: "a b  c"},
}

// Whatever keys reach a field, it never crashes the workbench and its
// cursor stays inside what was typed.
func FuzzTextFieldTakesAnyKeys(f *testing.F) {
	f.Add([]byte{31, 31, 31, 0, 22}, uint8(10))                         // "xxx", left, alt+d
	f.Add([]byte{36, 0, 29, 36, 0, 0, 30, 36, 0, 27, 28, 17}, uint8(3)) // words, every way to delete one
	f.Add([]byte{33, 33, 32, 34, 2, 21, 22, 0, 24, 26}, uint8(1))       // wide and combining characters
	f.Fuzz(func(t *testing.T, keys []byte, width uint8) {
		in := textinput.New()
		in.CharLimit = 40
		in.SetWidth(int(width % 30))
		in.Focus()
		for _, k := range keys {
			in, _ = updateField(in, fieldKeys[int(k)%len(fieldKeys)])
			if n := len([]rune(in.Value())); in.Position() < 0 || in.Position() > n {
				t.Fatalf("cursor at %d in %q", in.Position(), in.Value())
			}
			_ = in.View()
		}
	})
}
