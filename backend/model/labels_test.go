package model

import "testing"

func TestLabelsAreFoundByKeyWhateverTheMapsOrder(t *testing.T) {
	m := map[string]string{"team": "payments", "app.kubernetes.io/instance": "web", "tier": "", "a": "1", "z": "26"}
	l := LabelsOf(m)
	if len(l) != len(m) {
		t.Fatalf("%d labels, want %d: %v", len(l), len(m), l)
	}
	for k, v := range m {
		if got, ok := l.Lookup(k); !ok || got != v || !l.Has(k) || l.Get(k) != v {
			t.Errorf("label %q: got %q (%v), want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"", "b", "team2", "zz", "app"} {
		if l.Has(k) || l.Get(k) != "" {
			t.Errorf("label %q found in %v", k, l)
		}
	}
	if LabelsOf(nil) != nil || LabelsOf(map[string]string{}).Has("a") {
		t.Error("no labels: want none")
	}
}
