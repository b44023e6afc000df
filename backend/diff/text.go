package diff

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Op tags a line of a diff.
type Op uint8

const (
	Equal  Op = iota // on both sides
	Delete           // only on the old (live) side
	Insert           // only on the new (desired) side
)

func (o Op) String() string {
	switch o {
	case Delete:
		return "delete"
	case Insert:
		return "insert"
	}
	return "equal"
}

// Line is one line of a diff.
type Line struct {
	Op Op
	// NoNewline marks the last line of a text that does not end in a line break.
	NoNewline bool
	// Old and New are the 1-based line numbers on each side; 0 on the side the
	// line is not on.
	Old, New int
	// Text is the line without its line break.
	Text string
}

// TextDiff is a line diff of two texts: every line of both, in order.
type TextDiff struct {
	Lines    []Line
	Inserted int // lines only on the new side
	Deleted  int // lines only on the old side
	// Approximate is set when the time bound ran out: the diff still accounts
	// exactly for both texts but may mark more lines changed than necessary.
	Approximate bool
}

// Changed reports whether the two texts differ.
func (d *TextDiff) Changed() bool { return d.Inserted+d.Deleted > 0 }

// The line-to-rune encoding of diffmatchpatch has room for about 1.1 million
// distinct lines; beyond this the texts get a coarse diff instead.
const maxDiffLines = 1_000_000

// Text diffs two texts line by line. A positive timeout bounds the search for
// the smallest diff; zero or less lets it run to the end.
func Text(old, new string, timeout time.Duration) *TextDiff {
	oldLines, newLines := splitLines(old), splitLines(new)
	d := &TextDiff{}
	switch {
	case old == new:
		d.Lines = make([]Line, 0, len(oldLines))
		d.equal(oldLines, 0, 0)
		return d
	case len(oldLines)+len(newLines) > maxDiffLines:
		d.coarse(oldLines, newLines)
		return d
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = max(timeout, 0)
	chars1, chars2, _ := dmp.DiffLinesToRunes(old, new)
	start := time.Now()
	diffs := dmp.DiffMainRunes(chars1, chars2, false)
	// The search only gives up after its deadline has passed, so a run that
	// ended sooner is exact; one that took longer may have been cut short.
	d.Approximate = timeout > 0 && time.Since(start) >= timeout

	// Each rune stands for one line, and the diff walks both texts in order,
	// so rune counts are enough to take the lines from the split texts.
	counts := make([]int, len(diffs))
	total := 0
	for k, df := range diffs {
		counts[k] = utf8.RuneCountInString(df.Text)
		total += counts[k]
	}
	d.Lines = make([]Line, 0, total)
	var i, j int
	for k, df := range diffs {
		n := counts[k]
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			d.equal(oldLines[i:i+n], i, j)
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			d.add(Delete, oldLines[i:i+n], i)
			i += n
		case diffmatchpatch.DiffInsert:
			d.add(Insert, newLines[j:j+n], j)
			j += n
		}
	}
	return d
}

// coarse diffs texts too large for the line encoding: common leading and
// trailing lines are kept, everything between is replaced.
func (d *TextDiff) coarse(oldLines, newLines []string) {
	d.Approximate = true
	p := 0
	for p < len(oldLines) && p < len(newLines) && oldLines[p] == newLines[p] {
		p++
	}
	s := 0
	for s < len(oldLines)-p && s < len(newLines)-p &&
		oldLines[len(oldLines)-1-s] == newLines[len(newLines)-1-s] {
		s++
	}
	d.equal(oldLines[:p], 0, 0)
	d.add(Delete, oldLines[p:len(oldLines)-s], p)
	d.add(Insert, newLines[p:len(newLines)-s], p)
	d.equal(oldLines[len(oldLines)-s:], len(oldLines)-s, len(newLines)-s)
}

// equal appends lines common to both sides; i and j count the lines before
// them on each side.
func (d *TextDiff) equal(lines []string, i, j int) {
	for k, l := range lines {
		text, noNL := cutNewline(l)
		d.Lines = append(d.Lines, Line{Op: Equal, Old: i + k + 1, New: j + k + 1, Text: text, NoNewline: noNL})
	}
}

// add appends lines of one side; before counts the lines before them there.
func (d *TextDiff) add(op Op, lines []string, before int) {
	for k, l := range lines {
		text, noNL := cutNewline(l)
		ln := Line{Op: op, Text: text, NoNewline: noNL}
		if op == Delete {
			ln.Old = before + k + 1
		} else {
			ln.New = before + k + 1
		}
		d.Lines = append(d.Lines, ln)
	}
	if op == Delete {
		d.Deleted += len(lines)
	} else {
		d.Inserted += len(lines)
	}
}

// splitLines splits after every line break, the way diffmatchpatch does: the
// last line lacks one only when the text does not end in a line break.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

func cutNewline(l string) (string, bool) {
	if text, ok := strings.CutSuffix(l, "\n"); ok {
		return text, false
	}
	return l, true
}
