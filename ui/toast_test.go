package ui

import (
	"strings"
	"testing"
)

// A toast belongs to the screen it was raised on: what a Stack's detail
// said is gone once the detail is left, and a note of the list does not
// show over the screen opened from it.
func TestToastStaysWithTheScreenThatRaisedIt(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	const trees = "live resource trees are for Argo CD Applications"
	selectUnit(t, a, "dns-zones")
	press(a, "enter", "w")
	if !strings.Contains(flat(a), trees) {
		t.Fatalf("w on a Stack's detail must say why there is no tree:\n%s", plain(a))
	}
	press(a, "esc")
	if !topIs[*listScreen](a) || strings.Contains(flat(a), trees) {
		t.Errorf("the detail's note outlived it:\n%s", plain(a))
	}
	press(a, "o")
	if !strings.Contains(plain(a), "sorted by") {
		t.Fatalf("o must say how the list is sorted:\n%s", plain(a))
	}
	press(a, "enter")
	if strings.Contains(plain(a), "sorted by") {
		t.Errorf("the list's note shows over the detail:\n%s", plain(a))
	}
}
