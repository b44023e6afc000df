package model

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClipKeepsShortTextAndMarksWhatItCuts(t *testing.T) {
	if got := Clip("apply failed"); got != "apply failed" {
		t.Fatalf("short text changed: %q", got)
	}
	long := strings.Repeat("é", 3*TextLimit) // two bytes a rune: the cut falls inside one
	got := Clip(long)
	head, marker, ok := strings.Cut(got, "… (")
	if !ok || !strings.HasSuffix(marker, " bytes more)") {
		t.Fatalf("no visible marker at the end of the clipped text: ...%q", got[len(got)-40:])
	}
	if len(head) > TextLimit || !utf8.ValidString(got) || !strings.HasPrefix(long, head) {
		t.Fatalf("clipped to %d bytes, valid UTF-8 %v", len(head), utf8.ValidString(got))
	}
	if want := "(" + strconv.Itoa(len(long)-len(head)) + " bytes more)"; !strings.HasSuffix(got, want) {
		t.Fatalf("marker %q, want %q", got[len(head):], want)
	}
}

func TestBoundedClipsEveryStatusTextAndCapsHistories(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	conds := func() []Condition { return []Condition{{Type: "Ready", Reason: huge, Message: huge}} }
	history := make([]int64, 1000)
	for i := range history {
		history[i] = int64(i)
	}
	helm := make([]HelmRelease, 1000)
	for i := range helm {
		helm[i].Version = int64(1000 - i)
	}
	u := Bounded(&Unit{RunReason: huge, Persisting: huge, ReadErrors: []string{huge},
		Argo:  &ArgoFacts{PhaseMessage: huge, Conditions: conds(), HistoryIDs: history},
		Stack: &StackFacts{LastMessage: huge, Conditions: conds()},
		Flux:  &FluxFacts{Conditions: conds(), LastAttempted: huge, Helm: &HelmFacts{History: helm}},
		Tofu:  &TofuFacts{FluxFacts: FluxFacts{Conditions: conds()}}})
	for name, s := range map[string]string{"reason": u.RunReason, "persisting": u.Persisting, "read error": u.ReadErrors[0],
		"phase message": u.Argo.PhaseMessage, "argo condition": u.Argo.Conditions[0].Message, "stack message": u.Stack.LastMessage,
		"stack condition": u.Stack.Conditions[0].Reason, "flux condition": u.Flux.Conditions[0].Message,
		"flux revision": u.Flux.LastAttempted, "tofu condition": u.Tofu.Conditions[0].Message} {
		if len(s) > TextLimit+40 {
			t.Errorf("%s kept %d bytes", name, len(s))
		}
	}
	if n := len(u.Argo.HistoryIDs); n != HistoryLimit || u.Argo.HistoryIDs[n-1] != 999 {
		t.Errorf("Argo CD history: %d entries ending at %d, want the newest %d", n, u.Argo.HistoryIDs[n-1], HistoryLimit)
	}
	if h := u.Flux.Helm.History; len(h) != HistoryLimit || h[0].Version != 1000 {
		t.Errorf("Helm history: %d entries starting at %d, want the newest %d", len(h), h[0].Version, HistoryLimit)
	}
}
