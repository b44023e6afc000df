package diff

import (
	"bufio"
	"io"
)

// WriteUnified prints the diff as `diff -u` does, under "--- oldLabel" and
// "+++ newLabel" headers, with context lines around each change. It prints
// nothing when the texts are equal. An approximate diff is preceded by a note
// that patch(1) ignores.
func (d *TextDiff) WriteUnified(w io.Writer, oldLabel, newLabel string, context int) error {
	bw := bufio.NewWriter(w)
	writeUnified(bw, d, oldLabel, newLabel, context)
	return bw.Flush()
}

// WriteUnified prints every added, removed or modified object's diff, in the
// report's order, labelled live/<key> and desired/<key>.
func (r *Report) WriteUnified(w io.Writer, context int) error {
	bw := bufio.NewWriter(w)
	for _, o := range r.Objects {
		key := o.Key.String()
		writeUnified(bw, o.Text, "live/"+key, "desired/"+key, context)
	}
	return bw.Flush()
}

// approximateNote is leading text, which patch(1) skips before a "---" header.
const approximateNote = "# approximate: the diff ran out of time; more lines may show as changed than did change\n"

func writeUnified(w *bufio.Writer, d *TextDiff, oldLabel, newLabel string, context int) {
	hunks := d.Hunks(context)
	if len(hunks) == 0 {
		return
	}
	if d.Approximate {
		w.WriteString(approximateNote)
	}
	w.WriteString("--- " + oldLabel + "\n+++ " + newLabel + "\n")
	for _, h := range hunks {
		w.WriteString(h.Header() + "\n")
		for _, l := range h.Lines {
			w.WriteString(marker(l.Op))
			w.WriteString(l.Text)
			w.WriteByte('\n')
			if l.NoNewline {
				w.WriteString("\\ No newline at end of file\n")
			}
		}
	}
}

func marker(op Op) string {
	switch op {
	case Delete:
		return "-"
	case Insert:
		return "+"
	}
	return " "
}
