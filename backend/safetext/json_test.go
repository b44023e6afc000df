package safetext

import (
	"encoding/json"
	"strings"
	"testing"
)

// A C1 CSI and a bidi override survive encoding/json raw; after JSON they
// are \u escapes and the document still decodes to the very same text.
func TestJSONEscapesC1AndBidiControlsAndKeepsTheValue(t *testing.T) {
	in := map[string]string{"reason": "moved \u009b2J c1 \x1b[H \u202eevil\u202c ünïcode"}
	raw, _ := json.Marshal(in)
	if !strings.Contains(string(raw), "\u009b") {
		t.Fatal("encoding/json now escapes C1 itself: JSON is no longer needed")
	}
	safe := JSON(raw)
	if strings.ContainsAny(string(safe), "\u009b\u202e\u202c\x1b") {
		t.Errorf("raw control left: %q", safe)
	}
	if !strings.Contains(string(safe), `\u009b2J`) || !strings.Contains(string(safe), "ünïcode") {
		t.Errorf("got %s", safe)
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil || back["reason"] != in["reason"] {
		t.Errorf("decodes to %q (%v), want %q", back["reason"], err, in["reason"])
	}
}
