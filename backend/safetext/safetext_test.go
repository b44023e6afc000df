package safetext

import (
	"strings"
	"testing"
)

func TestVisibleEscapesWhatATerminalWouldObey(t *testing.T) {
	cases := map[string]string{
		"plain text":                    "plain text",
		"title \x1b]0;pwned\x07 done":   `title \x1b]0;pwned\x07 done`,
		"clip \x1b]52;c;aGk=\x1b\\ end": `clip \x1b]52;c;aGk=\x1b\ end`,
		"red \x1b[31mred\x1b[0m":        `red \x1b[31mred\x1b[0m`,
		"two\nlines\tand\rreturn":       `two\nlines\tand\rreturn`,
		"c1 \u009b31m csi":              `c1 \u009b31m csi`,
		"bad \xff byte":                 `bad \xff byte`,
		"bidi \u202eevil":               `bidi \u202eevil`,
		"unicode ünïcødé ✓ 日本":          "unicode ünïcødé ✓ 日本",
		"del \x7f":                      `del \x7f`,
	}
	for in, want := range cases {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(Visible(in), "\x1b\x07\n\r\t\u009b\u202e") {
			t.Errorf("Visible(%q) still holds a control character", in)
		}
	}
}

func TestBlockKeepsLinesAndEscapesTheRest(t *testing.T) {
	got := Block("line one\n\x1b]0;x\x07line\ttwo")
	want := "line one\n\\x1b]0;x\\x07line    two"
	if got != want {
		t.Fatalf("Block = %q, want %q", got, want)
	}
}

func FuzzVisibleNeverLeavesAControlCharacter(f *testing.F) {
	f.Add("\x1b]52;c;aGk=\x07")
	f.Add("\xff\xfe\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Visible(s) {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) || isBidiControl(r) {
				t.Fatalf("Visible(%q) holds %U", s, r)
			}
		}
	})
}
