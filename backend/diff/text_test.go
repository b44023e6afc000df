package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// bigManifest makes a YAML-like text of n lines and a copy with changes lines
// edited, inserted or deleted at scattered places.
func bigManifest(n, changes int) (string, string) {
	rng := rand.New(rand.NewPCG(1, 2))
	lines := make([]string, n)
	for i := range lines {
		switch i % 8 {
		case 0:
			lines[i] = fmt.Sprintf("- name: service-%d", i/8)
		case 1:
			lines[i] = "  replicas: 3"
		case 2:
			lines[i] = "  image: registry.example.com/shop/service:v1.2.3"
		case 3:
			lines[i] = fmt.Sprintf("  port: %d", 8000+i%50)
		default:
			lines[i] = fmt.Sprintf("  env%d: value-%d", i%8, rng.IntN(1000))
		}
	}
	old := strings.Join(lines, "\n") + "\n"
	for c := range changes {
		i := rng.IntN(len(lines))
		switch c % 3 {
		case 0:
			lines[i] += "-changed"
		case 1:
			lines = append(lines[:i], append([]string{"  inserted: true"}, lines[i:]...)...)
		case 2:
			lines = append(lines[:i], lines[i+1:]...)
		}
	}
	return old, strings.Join(lines, "\n") + "\n"
}

// sides rebuilds both texts from a diff's lines.
func sides(lines []Line) (string, string) {
	var old, new strings.Builder
	for _, l := range lines {
		text := l.Text
		if !l.NoNewline {
			text += "\n"
		}
		if l.Op != Insert {
			old.WriteString(text)
		}
		if l.Op != Delete {
			new.WriteString(text)
		}
	}
	return old.String(), new.String()
}

func TestTimeoutGivesCoarserButCorrectDiff(t *testing.T) {
	old, new := bigManifest(20000, 200)
	exact := Text(old, new, 0)
	if exact.Approximate {
		t.Fatal("an unbounded diff is marked approximate")
	}
	cut := Text(old, new, time.Nanosecond)
	if !cut.Approximate {
		t.Fatal("a diff cut short is not marked approximate")
	}
	for name, d := range map[string]*TextDiff{"exact": exact, "cut": cut} {
		if o, n := sides(d.Lines); o != old || n != new {
			t.Fatalf("%s diff does not rebuild both texts", name)
		}
	}
	if cut.Deleted <= exact.Deleted || cut.Inserted <= exact.Inserted {
		t.Errorf("cut diff (+%d -%d) is not coarser than the exact one (+%d -%d)",
			cut.Inserted, cut.Deleted, exact.Inserted, exact.Deleted)
	}
}

func TestCoarseDiffOfTextsTooLargeToEncode(t *testing.T) {
	n := maxDiffLines/2 + 10
	old := strings.Repeat("line\n", n)
	new := strings.Repeat("line\n", 7) + "seven\n" + strings.Repeat("line\n", n-8)
	d := Text(old, new, 0)
	if !d.Approximate || d.Inserted != 1 || d.Deleted != 1 {
		t.Errorf("approximate=%v +%d -%d, want the one changed line, marked approximate", d.Approximate, d.Inserted, d.Deleted)
	}
	if d.Lines[7] != (Line{Op: Delete, Old: 8, Text: "line"}) || d.Lines[8] != (Line{Op: Insert, New: 8, Text: "seven"}) {
		t.Errorf("changed lines: %+v", d.Lines[7:9])
	}
	if o, n := sides(d.Lines); o != old || n != new {
		t.Error("coarse diff does not rebuild both texts")
	}
}

// FuzzDiff checks that a diff's lines, its hunks applied as a patch, and its
// side-by-side rows all reproduce both texts exactly.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd")
	f.Add("", "x")
	f.Add("same\n", "same\n")
	f.Add("\n\n\n", "\n")
	f.Add("a\r\nb\n", "a\nb\r\n")
	f.Add("\xff\xfe\n", "\xff\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		d := Text(old, new, 0)
		if o, n := sides(d.Lines); o != old || n != new {
			t.Fatalf("lines rebuild %q, %q", o, n)
		}
		wantOld, wantNew := 0, 0
		ins, del := 0, 0
		for _, l := range d.Lines {
			if l.Op != Insert {
				wantOld++
				if l.Old != wantOld {
					t.Fatalf("old line number %d, want %d", l.Old, wantOld)
				}
			}
			if l.Op != Delete {
				wantNew++
				if l.New != wantNew {
					t.Fatalf("new line number %d, want %d", l.New, wantNew)
				}
			}
			switch l.Op {
			case Insert:
				ins++
			case Delete:
				del++
			}
		}
		if ins != d.Inserted || del != d.Deleted {
			t.Fatalf("counts +%d -%d, lines say +%d -%d", d.Inserted, d.Deleted, ins, del)
		}
		for _, context := range []int{0, 1, 3} {
			if got := patch(t, old, d.Hunks(context)); got != new {
				t.Fatalf("hunks with context %d patch %q into %q, want %q", context, old, got, new)
			}
		}
		for _, h := range d.Hunks(-1) {
			var o, n []string
			for _, r := range h.Rows(0) {
				if !r.Old.Empty() {
					o = append(o, r.Old.Text)
				}
				if !r.New.Empty() {
					n = append(n, r.New.Text)
				}
			}
			if strings.Join(o, "\n") != texts(h.Lines, Insert) || strings.Join(n, "\n") != texts(h.Lines, Delete) {
				t.Fatalf("rows do not hold the hunk's lines")
			}
		}
	})
}

// texts joins the tab-expanded text of the lines not tagged skip.
func texts(lines []Line, skip Op) string {
	var out []string
	for _, l := range lines {
		if l.Op != skip {
			out = append(out, expandTabs(l.Text))
		}
	}
	return strings.Join(out, "\n")
}

// patch applies hunks to old the way patch(1) reads their headers.
func patch(t *testing.T, old string, hunks []Hunk) string {
	t.Helper()
	oldLines := splitLines(old)
	var out strings.Builder
	next := 0 // index of the next old line to copy
	for _, h := range hunks {
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart
		}
		if start < next || start > len(oldLines) {
			t.Fatalf("hunk %s starts at old line %d, before %d or past the end", h.Header(), start+1, next+1)
		}
		for _, l := range oldLines[next:start] {
			out.WriteString(l)
		}
		next = start
		for _, l := range h.Lines {
			text := l.Text
			if !l.NoNewline {
				text += "\n"
			}
			if l.Op != Insert {
				if next >= len(oldLines) || oldLines[next] != text {
					t.Fatalf("hunk %s does not match old line %d", h.Header(), next+1)
				}
				next++
			}
			if l.Op != Delete {
				out.WriteString(text)
			}
		}
	}
	for _, l := range oldLines[next:] {
		out.WriteString(l)
	}
	return out.String()
}
