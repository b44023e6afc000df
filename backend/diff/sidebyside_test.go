package diff

import (
	"testing"
)

func TestRowsPairChangedLines(t *testing.T) {
	d := Text("a\nb\nc\nd\n", "a\nB\nd\ne\nf\n", 0)
	rows := d.Hunks(-1)[0].Rows(0)
	// want: a|a, b|B, c|-, d|d, -|e, -|f
	want := []Row{
		{Cell{Equal, 1, "a", false}, Cell{Equal, 1, "a", false}},
		{Cell{Delete, 2, "b", false}, Cell{Insert, 2, "B", false}},
		{Cell{Delete, 3, "c", false}, Cell{}},
		{Cell{Equal, 4, "d", false}, Cell{Equal, 3, "d", false}},
		{Cell{}, Cell{Insert, 4, "e", false}},
		{Cell{}, Cell{Insert, 5, "f", false}},
	}
	checkRows(t, rows, want)
	if !rows[2].New.Empty() || rows[2].Old.Empty() {
		t.Errorf("row 2 emptiness: %+v", rows[2])
	}
}

func TestRowsWrapToWidth(t *testing.T) {
	d := Text("key: short\n", "key: a-much-longer-value\n", 0)
	rows := d.Hunks(3)[0].Rows(10)
	want := []Row{
		{Cell{Delete, 1, "key: short", false}, Cell{Insert, 1, "key: a-muc", false}},
		{Cell{}, Cell{Insert, 1, "h-longer-v", true}},
		{Cell{}, Cell{Insert, 1, "alue", true}},
	}
	checkRows(t, rows, want)
}

func TestRowsWrapWideCharactersAndTabs(t *testing.T) {
	// Each of these characters takes two terminal cells: three fill six.
	d := Text("", "日本語\n\tx\n", 0)
	rows := d.Hunks(3)[0].Rows(4)
	want := []Row{
		{Cell{}, Cell{Insert, 1, "日本", false}},
		{Cell{}, Cell{Insert, 1, "語", true}},
		{Cell{}, Cell{Insert, 2, "    ", false}},
		{Cell{}, Cell{Insert, 2, "    ", true}},
		{Cell{}, Cell{Insert, 2, "x", true}},
	}
	checkRows(t, rows, want)
}

func checkRows(t *testing.T, got, want []Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
