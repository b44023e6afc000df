package logs

import "strings"

// DefaultBufferBytes bounds what a log screen keeps: about 4 MiB of text,
// the oldest lines dropped first.
const DefaultBufferBytes = 4 << 20

// lineOverhead is what a kept line costs besides its text (the string
// header and the ring's slot), so a flood of empty lines is bounded too.
const lineOverhead = 32

// Buffer keeps the newest lines of a log within a byte budget and counts
// what it dropped. It is not safe for concurrent use.
type Buffer struct {
	max     int
	size    int
	lines   []Line // a ring: start is the oldest
	start   int
	dropped int
}

// NewBuffer keeps at most maxBytes of lines (DefaultBufferBytes if <= 0).
func NewBuffer(maxBytes int) *Buffer {
	if maxBytes <= 0 {
		maxBytes = DefaultBufferBytes
	}
	return &Buffer{max: maxBytes}
}

func cost(l Line) int { return len(l.Text) + lineOverhead }

// Add appends a line, dropping the oldest until the budget holds.
func (b *Buffer) Add(l Line) {
	b.lines = append(b.lines, l)
	b.size += cost(l)
	for b.size > b.max && b.Len() > 1 {
		b.size -= cost(b.lines[b.start])
		b.lines[b.start] = Line{}
		b.start++
		b.dropped++
	}
	// Compact once the dropped prefix is half the slice, so the ring's
	// memory stays within twice what it holds.
	if b.start > 0 && b.start*2 >= len(b.lines) {
		b.lines = append([]Line(nil), b.lines[b.start:]...)
		b.start = 0
	}
}

// Len is how many lines it holds.
func (b *Buffer) Len() int { return len(b.lines) - b.start }

// At is the i-th line held, 0 the oldest.
func (b *Buffer) At(i int) Line { return b.lines[b.start+i] }

// Dropped is how many of the oldest lines were dropped to stay in budget.
func (b *Buffer) Dropped() int { return b.dropped }

// Max is the byte budget.
func (b *Buffer) Max() int { return b.max }

// Bytes is the budget's use.
func (b *Buffer) Bytes() int { return b.size }

// Reset forgets every line (a new stream) and the dropped count.
func (b *Buffer) Reset() { *b = Buffer{max: b.max} }

// Find is the index of the next line (dir 1) or previous one (dir -1)
// after from that holds query, case-insensitively, wrapping around; -1 when
// none does.
func (b *Buffer) Find(query string, from, dir int) int {
	n := b.Len()
	if query == "" || n == 0 {
		return -1
	}
	q := strings.ToLower(query)
	for step := 1; step <= n; step++ {
		i := ((from+dir*step)%n + n) % n
		if strings.Contains(strings.ToLower(b.At(i).Text), q) {
			return i
		}
	}
	return -1
}

// Matches counts the lines that hold query.
func (b *Buffer) Matches(query string) int {
	if query == "" {
		return 0
	}
	q, count := strings.ToLower(query), 0
	for i := 0; i < b.Len(); i++ {
		if strings.Contains(strings.ToLower(b.At(i).Text), q) {
			count++
		}
	}
	return count
}
