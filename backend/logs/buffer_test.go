package logs

import (
	"fmt"
	"strings"
	"testing"
)

func TestBufferKeepsTheNewestLinesWithinItsBudget(t *testing.T) {
	b := NewBuffer(10 << 10)
	for i := range 10000 {
		b.Add(Line{Text: fmt.Sprintf("line %05d %s", i, strings.Repeat("x", 90))})
	}
	if b.Bytes() > 10<<10 {
		t.Fatalf("holds %d bytes, budget 10 KiB", b.Bytes())
	}
	if b.Dropped() == 0 || b.Dropped()+b.Len() != 10000 {
		t.Fatalf("dropped %d + held %d != 10000 added", b.Dropped(), b.Len())
	}
	if last := b.At(b.Len() - 1).Text; !strings.HasPrefix(last, "line 09999") {
		t.Fatalf("the newest line is %q", last)
	}
	if first := b.At(0).Text; first != fmt.Sprintf("line %05d %s", b.Dropped(), strings.Repeat("x", 90)) {
		t.Fatalf("the oldest line held is %q, want line %d", first[:12], b.Dropped())
	}
	if cap(b.lines) > 4*b.Len() {
		t.Fatalf("the ring holds %d slots for %d lines", cap(b.lines), b.Len())
	}
}

func TestBufferFindWrapsBothWays(t *testing.T) {
	b := NewBuffer(0)
	for _, s := range []string{"start", "ERROR one", "ok", "error two", "end"} {
		b.Add(Line{Text: s})
	}
	if got := b.Find("error", 0, 1); got != 1 {
		t.Errorf("next from 0 = %d, want 1", got)
	}
	if got := b.Find("error", 3, 1); got != 1 {
		t.Errorf("next from 3 wraps to %d, want 1", got)
	}
	if got := b.Find("error", 1, -1); got != 3 {
		t.Errorf("previous from 1 wraps to %d, want 3", got)
	}
	if got := b.Find("missing", 0, 1); got != -1 {
		t.Errorf("no match = %d", got)
	}
	if b.Matches("ERROR") != 2 {
		t.Errorf("matches = %d, want 2", b.Matches("ERROR"))
	}
}

func TestReadLinesCutsHugeLinesAndKeepsTheLastOne(t *testing.T) {
	huge := strings.Repeat("y", MaxLineBytes+100)
	var got []string
	var cuts []int
	err := readLines(strings.NewReader("a\n"+huge+"\nno newline"), func(l string, cut int) {
		got, cuts = append(got, l), append(cuts, cut)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != "a" || len(got[1]) != MaxLineBytes || cuts[1] != 100 || got[2] != "no newline" {
		t.Fatalf("lines %d, cuts %v, last %q", len(got), cuts, got[len(got)-1])
	}
}

func TestMaskerHidesEveryFormOfAValue(t *testing.T) {
	m := &masker{r: replacer(append(secretForms("hunter2-secret"), secretForms("-----BEGIN KEY-----\nAAAAsecretline\n-----END KEY-----")...))}
	for _, line := range []string{
		"password=hunter2-secret done",
		"b64 aHVudGVyMi1zZWNyZXQ=",
		"key line AAAAsecretline",
	} {
		got := m.mask(line)
		if strings.Contains(got, "hunter2") || strings.Contains(got, "aHVudGVy") || strings.Contains(got, "AAAAsecret") || !strings.Contains(got, Masked) {
			t.Errorf("mask(%q) = %q", line, got)
		}
	}
	if got := (&masker{r: replacer(secretForms("ab"))}).mask("ab cd"); got != "ab cd" {
		t.Errorf("a value shorter than %d bytes must not blank the log: %q", MinMaskedLen, got)
	}
}
