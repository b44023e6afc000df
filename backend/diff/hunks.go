package diff

import "strconv"

// DefaultContext is the number of unchanged lines shown around each change,
// as in `diff -u`.
const DefaultContext = 3

// Hunk is a run of changed lines with the unchanged lines around them.
type Hunk struct {
	// OldStart and NewStart are the 1-based first line numbers on each side;
	// for a side with no lines in the hunk, the number of the line before it.
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Header renders the hunk's position as `diff -u` does: "@@ -a,b +c,d @@",
// leaving out a count of 1.
func (h Hunk) Header() string {
	return "@@ -" + hunkRange(h.OldStart, h.OldLines) + " +" + hunkRange(h.NewStart, h.NewLines) + " @@"
}

func hunkRange(start, count int) string {
	if count == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(count)
}

// Hunks groups the changes with context unchanged lines around each; changes
// whose context would touch or overlap share a hunk. A negative context keeps
// every line in one hunk. Texts without changes have no hunks.
func (d *TextDiff) Hunks(context int) []Hunk {
	if !d.Changed() {
		return nil
	}
	if context < 0 {
		return []Hunk{makeHunk(d.Lines, 0, len(d.Lines), 0, 0)}
	}
	var hunks []Hunk
	n := len(d.Lines)
	// oldBefore and newBefore count each side's lines before index i.
	oldBefore, newBefore := 0, 0
	i := 0
	for i < n {
		first := nextChange(d.Lines, i)
		if first == n {
			break
		}
		// Extend over further changes separated by at most 2*context equal lines.
		last := first
		for {
			next := nextChange(d.Lines, last+1)
			if next == n || next-last-1 > 2*context {
				break
			}
			last = next
		}
		start := max(first-context, i)
		end := min(last+1+context, n)
		for _, l := range d.Lines[i:start] {
			oldBefore, newBefore = countSides(l, oldBefore, newBefore)
		}
		h := makeHunk(d.Lines, start, end, oldBefore, newBefore)
		hunks = append(hunks, h)
		oldBefore += h.OldLines
		newBefore += h.NewLines
		i = end
	}
	return hunks
}

func nextChange(lines []Line, from int) int {
	for from < len(lines) && lines[from].Op == Equal {
		from++
	}
	return from
}

func countSides(l Line, old, new int) (int, int) {
	if l.Op != Insert {
		old++
	}
	if l.Op != Delete {
		new++
	}
	return old, new
}

func makeHunk(lines []Line, start, end, oldBefore, newBefore int) Hunk {
	h := Hunk{Lines: lines[start:end:end]}
	for _, l := range h.Lines {
		h.OldLines, h.NewLines = countSides(l, h.OldLines, h.NewLines)
	}
	h.OldStart, h.NewStart = oldBefore, newBefore
	if h.OldLines > 0 {
		h.OldStart++
	}
	if h.NewLines > 0 {
		h.NewStart++
	}
	return h
}
