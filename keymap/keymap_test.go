package keymap

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
)

func TestOverride(t *testing.T) {
	k := Default()
	if err := k.Override(map[string][]string{"sync": {"S"}, "hard-refresh": {"ctrl+r"}}); err != nil {
		t.Fatal(err)
	}
	if !key.Matches(tea.KeyPressMsg{Code: 'S', Text: "S"}, k.Sync) || key.Matches(tea.KeyPressMsg{Code: 's', Text: "s"}, k.Sync) {
		t.Error("sync not rebound to S")
	}
	if k.HardRefresh.Help().Key != "ctrl+r" || k.HardRefresh.Help().Desc != "hard refresh" {
		t.Errorf("help %+v", k.HardRefresh.Help())
	}
	err := k.Override(map[string][]string{"snyc": {"x"}})
	if err == nil || !strings.Contains(err.Error(), "snyc") || !strings.Contains(err.Error(), "sync") {
		t.Fatalf("a typo must be reported with the known names: %v", err)
	}
}

func TestBindingByTableName(t *testing.T) {
	k := Default()
	if err := k.Override(map[string][]string{"hard-refresh": {"ctrl+r"}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hardrefresh", "hard-refresh", "HardRefresh"} {
		b, ok := k.Binding(name)
		if !ok || !key.Matches(tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}, b) {
			t.Errorf("Binding(%q) = %v, %v; want the overridden hard refresh", name, b.Keys(), ok)
		}
	}
	if _, ok := k.Binding("snyc"); ok {
		t.Error("an unknown name must not find a binding")
	}
}

// Every action the table names a key for has one, and no two bindings
// outside a dialog (its y/n, fields, options and buttons) share a key: a
// key must not do two things on one screen. Reject is the one key of the
// change requests screen, which has no unit under its cursor and passes no
// key on: its D is not drift's there.
func TestEveryActionHasItsOwnKey(t *testing.T) {
	k := Default()
	for _, s := range actions.Specs() {
		if s.Key == "" {
			continue
		}
		if b, ok := k.Binding(s.Key); !ok || len(b.Keys()) == 0 {
			t.Errorf("%s: the table names binding %q, the keymap has none", s.Kind, s.Key)
		}
	}
	owner := map[string]string{}
	for name, b := range k.bindings() {
		switch name {
		case "confirm", "cancel", "nextfield", "prevfield", "tick", "choose", "reject":
			continue
		}
		for _, key := range b.Keys() {
			if other, taken := owner[key]; taken {
				t.Errorf("key %q is bound to both %s and %s", key, other, name)
			}
			owner[key] = name
		}
	}
}
