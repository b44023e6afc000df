package diff

import (
	"fmt"
	"strings"
	"testing"
)

func unified(t *testing.T, old, new string, context int) string {
	t.Helper()
	var b strings.Builder
	if err := Text(old, new, 0).WriteUnified(&b, "live", "desired", context); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// seq numbers lines from..to as two digits, with some lines replaced.
func seq(from, to int, replace map[int]string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if r, ok := replace[i]; ok {
			b.WriteString(r + "\n")
			continue
		}
		fmt.Fprintf(&b, "%02d\n", i)
	}
	return b.String()
}

// The expected outputs are what GNU diff -u prints for the same inputs.
func TestUnifiedHunks(t *testing.T) {
	const head = "--- live\n+++ desired\n"
	tests := []struct {
		name     string
		old, new string
		context  int
		want     string
	}{
		{"no change", "a\nb\n", "a\nb\n", 3, ""},
		{"change at first line", "a\nb\nc\n", "x\nb\nc\n", 3,
			"@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n"},
		{"line appended at the end", "a\nb\n", "a\nb\nc\n", 3,
			"@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
		{"zero context insertion names the line before", "a\nb\n", "a\nb\nc\n", 0,
			"@@ -2,0 +3 @@\n+c\n"},
		{"everything inserted", "", "a\nb\nc\n", 3,
			"@@ -0,0 +1,3 @@\n+a\n+b\n+c\n"},
		{"everything deleted", "a\nb\nc\n", "", 3,
			"@@ -1,3 +0,0 @@\n-a\n-b\n-c\n"},
		{"old side lacks the final newline", "a\nb", "a\nb\n", 3,
			"@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"new side lacks the final newline", "a\nb\n", "a\nc", 3,
			"@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"},
		{"both lack it on an unchanged last line", "x\nb", "y\nb", 3,
			"@@ -1,2 +1,2 @@\n-x\n+y\n b\n\\ No newline at end of file\n"},
		{"changes six lines apart share a hunk", seq(1, 20, nil), seq(1, 20, map[int]string{4: "X", 11: "Y"}), 3,
			"@@ -1,14 +1,14 @@\n 01\n 02\n 03\n-04\n+X\n 05\n 06\n 07\n 08\n 09\n 10\n-11\n+Y\n 12\n 13\n 14\n"},
		{"changes seven lines apart get two hunks", seq(1, 20, nil), seq(1, 20, map[int]string{4: "X", 12: "Y"}), 3,
			"@@ -1,7 +1,7 @@\n 01\n 02\n 03\n-04\n+X\n 05\n 06\n 07\n@@ -9,7 +9,7 @@\n 09\n 10\n 11\n-12\n+Y\n 13\n 14\n 15\n"},
		{"change at the last line", seq(1, 10, nil), seq(1, 10, map[int]string{10: "Z"}), 3,
			"@@ -7,4 +7,4 @@\n 07\n 08\n 09\n-10\n+Z\n"},
		{"adjacent changes with zero context stay apart", seq(1, 5, nil), seq(1, 5, map[int]string{2: "B", 4: "D"}), 0,
			"@@ -2 +2 @@\n-02\n+B\n@@ -4 +4 @@\n-04\n+D\n"},
		{"whole text with negative context", "a\nb\nc\nd\ne\n", "a\nb\nC\nd\ne\n", -1,
			"@@ -1,5 +1,5 @@\n a\n b\n-c\n+C\n d\n e\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want != "" {
				want = head + want
			}
			if got := unified(t, tt.old, tt.new, tt.context); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestLineNumbersOnBothSides(t *testing.T) {
	d := Text("a\nb\nc\n", "a\nx\ny\nc\n", 0)
	want := []Line{
		{Op: Equal, Old: 1, New: 1, Text: "a"},
		{Op: Delete, Old: 2, Text: "b"},
		{Op: Insert, New: 2, Text: "x"},
		{Op: Insert, New: 3, Text: "y"},
		{Op: Equal, Old: 3, New: 4, Text: "c"},
	}
	if len(d.Lines) != len(want) {
		t.Fatalf("lines = %+v", d.Lines)
	}
	for i := range want {
		if d.Lines[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, d.Lines[i], want[i])
		}
	}
	if d.Inserted != 2 || d.Deleted != 1 || d.Approximate {
		t.Errorf("counts: +%d -%d approximate=%v", d.Inserted, d.Deleted, d.Approximate)
	}
}
