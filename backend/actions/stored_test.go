package actions

import (
	"strings"
	"testing"
	"time"
)

// A stored plan reads back to the same bytes, and one altered after it was
// stored is refused.
func TestAStoredPlanKeepsItsBytesAndRefusesAnAlteredOne(t *testing.T) {
	p := &Plan{Request: Request{Kind: Pause}, ResourceVersion: "42", Summary: "pause argocd/team-a/web", at: time.Unix(1795970100, 0),
		Patch: []Op{versionTest("42"), {"test", "/spec/syncPolicy/automated", map[string]any{"selfHeal": true, "prune": false}},
			{"test", "/metadata/annotations/driftdeck.io~1paused-at", nil}, {"test", "/spec/n", 0}, {"test", "/spec/e", ""},
			{"remove", "/spec/syncPolicy/automated", nil}, {"add", "/metadata/annotations/driftdeck.io~1paused-reason", "INC-7 <hold> & \"wait\""}},
		Also: []OtherWrite{{Object: "applicationset/argocd/shop", Patch: []Op{{"test", "/metadata/resourceVersion", "7"}, {"add", "/spec/x", []any{1.5, "y"}}}}}}
	s, err := p.Store()
	if err != nil {
		t.Fatal(err)
	}
	back, err := s.plan(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := patchText(back.Patch); got != s.Patch {
		t.Errorf("the stored patch reads back as\n%s\nwant\n%s", got, s.Patch)
	}
	if d := PlanDifferences(back, p); len(d) > 0 {
		t.Errorf("a stored plan read back differs from the plan: %v", d)
	}
	altered := s
	altered.Patch = strings.Replace(s.Patch, "INC-7", "INC-8", 1)
	if _, err := altered.plan(p); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a patch altered after it was stored: %v; want refused for its digest", err)
	}
	reformatted := s
	reformatted.Patch = strings.ReplaceAll(s.Patch, ",", ", ")
	reformatted.Digest = reformatted.digestOf()
	if _, err := reformatted.plan(p); err == nil || !strings.Contains(err.Error(), "byte for byte") {
		t.Errorf("a patch not in driftdeck's form: %v; want refused", err)
	}
}
