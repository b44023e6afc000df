package safetext

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// JSON makes encoding/json's output safe for a terminal too. The encoder
// escapes C0 controls (ESC among them) but writes C1 controls and bidi
// overrides as they are: U+009B is CSI to a terminal that honours C1
// controls, so "\u009b2J" from a cluster would clear the screen. JSON's
// structure is ASCII, so these runes are always inside a string, where
// \uXXXX means the same character: the document decodes to the same value.
func JSON(b []byte) []byte {
	if isPlainUnicodeJSON(b) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if (r >= 0x80 && r < 0xa0) || isBidiControl(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(b[i : i+size])
		}
		i += size
	}
	return out.Bytes()
}

// isPlainUnicodeJSON: no C1 control and no bidi control (the encoder has
// already escaped C0 controls and made the text valid UTF-8).
func isPlainUnicodeJSON(b []byte) bool {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if (r >= 0x80 && r < 0xa0) || isBidiControl(r) {
			return false
		}
		i += size
	}
	return true
}
