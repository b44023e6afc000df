// Package safetext makes text that comes from outside (a cluster, a state
// backend, a log, a CLI's output) safe to write to a terminal: control
// characters, escape sequences, invalid UTF-8 and bidirectional overrides are
// shown escaped (ESC as \x1b, a bad byte as \xff, U+202E as \u202e), so no
// value can retitle the terminal, write to its clipboard (OSC 52), move the
// cursor or hide text. JSON output needs only JSON: its encoder
// escapes C0 controls, JSON escapes the C1 and bidi controls it leaves.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible escapes every control character, newlines and tabs included: for
// one-line cells, table columns and log lines.
func Visible(s string) string { return escape(s, false) }

// Block escapes like Visible but keeps newlines, and turns tabs into spaces:
// for messages shown wrapped over several lines.
func Block(s string) string { return escape(s, true) }

func escape(s string, keepNewlines bool) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepNewlines && r == '\n':
			b.WriteByte('\n')
		case keepNewlines && r == '\t':
			b.WriteString("    ")
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0, isBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain is the fast path: printable ASCII needs no work.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return isPlainUnicode(s[i:])
		}
	}
	return true
}

func isPlainUnicode(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || r < 0x20 || (r >= 0x7f && r < 0xa0) || isBidiControl(r) {
			return false
		}
		i += size
	}
	return true
}

// isBidiControl: the embeddings, overrides and isolates that reorder how text
// reads on screen ("Trojan Source").
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
