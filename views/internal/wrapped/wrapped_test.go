package wrapped

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestLinesKeepEveryWordAndFitTheWidth(t *testing.T) {
	msg := "the last update failed because another update holds the stack's lock: retries fail until it is released; if its run is dead, break the lock, then retry"
	lines := Lines(msg, 30)
	if len(lines) < 5 {
		t.Fatalf("expected the text over several lines, got %q", lines)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 30 {
			t.Errorf("line %q is %d wide", l, w)
		}
	}
	if got := strings.Join(lines, " "); got != msg {
		t.Errorf("the wrapped text lost words:\n%s\n%s", got, msg)
	}
}

func TestLinesEscapeControlSequences(t *testing.T) {
	lines := Lines("copy \x1b]52;c;aGk=\x07 and title \x1b]0;pwned\x07\nsecond line", 200)
	joined := strings.Join(lines, "\n")
	if strings.ContainsAny(joined, "\x1b\x07") {
		t.Fatalf("raw control characters left: %q", joined)
	}
	if !strings.Contains(joined, `\x1b]52;c;aGk=\x07`) || !strings.Contains(joined, `\x1b]0;pwned\x07`) || len(lines) != 2 {
		t.Fatalf("want both sequences shown escaped on the first of two lines, got %q", lines)
	}
}

func TestFieldIndentsContinuationLines(t *testing.T) {
	out := Field("rule", 6, "one two three four", 12, lipgloss.NewStyle())
	want := []string{"rule  one", "      two", "      three", "      four"}
	if strings.Join(out, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", out, want)
	}
}

func TestLinesBreakOnlyAtSpacesAndCutWordsWiderThanTheLine(t *testing.T) {
	got := Lines("waiting for apps/StatefulSet/search-indexer "+strings.Repeat("x", 25), 20)
	want := []string{"waiting for", "apps/StatefulSet/sea", "rch-indexer", strings.Repeat("x", 20), "xxxxx"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := Lines("  indented line of text", 12); strings.Join(got, "|") != "  indented|  line of|  text" {
		t.Fatalf("indent lost: %q", got)
	}
}
