package detail

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

var now = time.Date(2026, 11, 29, 3, 14, 0, 0, time.UTC)

func lockedStack() *model.Unit {
	return &model.Unit{
		Key:  model.Key{Context: "prod", Engine: model.EnginePulumi, Namespace: "infra", Name: "dns-zones"},
		Kind: "Stack", Run: model.Stuck, Observed: model.Failed, RunSince: now.Add(-6 * time.Minute),
		RunReason: "last update failed: [409] Conflict: Another update is currently in progress on stack acme/dns-zones/prod, started by ci-runner-7",
		StuckRule: "the last update failed because another update holds the stack's lock: retries fail until it is released; if its run is dead, break the lock, then retry",
		Stack: &model.StackFacts{StackName: "acme/dns-zones/prod", Conditions: []model.Condition{{
			Type: "Ready", Status: "False", Reason: "UpdateFailed",
			Message: "copy \x1b]52;c;aGk=\x07 and retitle \x1b]0;pwned\x07 the terminal",
		}}},
	}
}

// words is the screen's text as one run of words: wrapped text reads the
// same as the original once the line breaks and indents are gone.
func words(screen string) string { return strings.Join(strings.Fields(ansi.Strip(screen)), " ") }

func TestOverviewWrapsTheReasonRuleAndRemedyWhole(t *testing.T) {
	u := lockedStack()
	m := New(themes.Dark(), u)
	m.SetSize(80, 40)
	m.SetAvailability([]model.Availability{{Kind: "retry", WhyNot: "the lock's holder is alive: pid 4242 on ci-runner-7 updated it 10s ago; a retry fails on the lock until that update ends"}})
	out := m.View(now)
	for i, l := range strings.Split(out, "\n") {
		if strings.Contains(ansi.Strip(l), "…") {
			t.Errorf("line %d is cut: %q", i, ansi.Strip(l))
		}
		if ansi.StringWidth(l) > 80 {
			t.Errorf("line %d is %d wide", i, ansi.StringWidth(l))
		}
	}
	all := words(out)
	for _, want := range []string{"why " + u.RunReason, "rule " + u.StuckRule, "retry — the lock's holder is alive: pid 4242 on ci-runner-7 updated it 10s ago; a retry fails on the lock until that update ends"} {
		if !strings.Contains(all, want) {
			t.Errorf("the overview lacks %q:\n%s", want, ansi.Strip(out))
		}
	}
}

func TestTextFromTheClusterIsShownEscaped(t *testing.T) {
	m := New(themes.Dark(), lockedStack())
	m.SetSize(100, 40)
	m.SetDetail(&describe.Detail{YAML: "metadata:\n  name: x\x1b]0;yaml\x07\n"}, nil)
	out := m.View(now)
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") {
		t.Fatal("an OSC sequence from a condition message reached the terminal")
	}
	if !strings.Contains(ansi.Strip(out), `copy \x1b]52;c;aGk=\x07 and retitle \x1b]0;pwned\x07 the terminal`) {
		t.Errorf("the condition message is not shown escaped:\n%s", ansi.Strip(out))
	}
	m.ShowTab(YAML)
	if out := ansi.Strip(m.View(now)); !strings.Contains(out, `name: x\x1b]0;yaml\x07`) {
		t.Errorf("the YAML is not shown escaped:\n%s", out)
	}
}

// ansi.Strip leaves what TERM=dumb shows: no colour, no reverse video.
func TestTheActiveTabAndTheHistoryCursorShowWithoutStyling(t *testing.T) {
	u := &model.Unit{Key: model.Key{Engine: model.EngineArgoCD, Namespace: "argocd", Name: "web"}, Kind: "Application", Argo: &model.ArgoFacts{}}
	m := New(themes.NoColor(), u)
	m.SetSize(100, 20)
	m.SetDetail(&describe.Detail{History: []describe.HistoryEntry{
		{ID: 3, Revision: "ccc", DeployedAt: now.Add(-time.Hour)},
		{ID: 2, Revision: "bbb", DeployedAt: now.Add(-2 * time.Hour)},
	}}, nil)
	if tabs := strings.Split(ansi.Strip(m.View(now)), "\n")[1]; !strings.Contains(tabs, "[Overview]") || strings.Count(tabs, "[") != 1 {
		t.Errorf("the tab line does not single out Overview: %q", tabs)
	}
	m.ShowTab(History)
	m.Scroll(1)
	plain := ansi.Strip(m.View(now))
	if !strings.Contains(plain, "[History]") {
		t.Errorf("the active tab is not History:\n%s", plain)
	}
	var cursor []string
	for _, l := range strings.Split(plain, "\n") {
		if strings.HasPrefix(l, "> ") {
			cursor = append(cursor, l)
		}
	}
	if len(cursor) != 1 || !strings.Contains(cursor[0], "bbb") {
		t.Errorf("want the cursor glyph on the second entry only, got %q", cursor)
	}
}

// A Stack's overview says that deleting it destroys what it manages, and
// names the Secrets it reads and the secret its spec holds (by field,
// never by value).
func TestAStacksOverviewWarnsOfDestroyOnDeleteAndNamesItsSecrets(t *testing.T) {
	u := lockedStack()
	u.Stack.DestroyOnFinalize = true
	u.Stack.SecretRefs = []model.SecretRef{{Field: "envRefs.PULUMI_ACCESS_TOKEN", Namespace: "infra", Name: "pulumi-api-token", Key: "accessToken"}}
	u.Stack.Literals = []string{"envRefs.PULUMI_CONFIG_PASSPHRASE"}
	m := New(themes.Dark(), u)
	m.SetSize(120, 60)
	all := words(m.View(now))
	for _, want := range []string{
		"on delete destroys what it manages (destroyOnFinalize): deleting this Stack, or pruning it, runs pulumi destroy",
		"secret envRefs.PULUMI_ACCESS_TOKEN: infra/pulumi-api-token key accessToken",
		"secret envRefs.PULUMI_CONFIG_PASSPHRASE written in the spec: whoever may read the Stack reads it",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the overview lacks %q:\n%s", want, all)
		}
	}
	u.Stack.DestroyOnFinalize = false
	m = New(themes.Dark(), u)
	m.SetSize(120, 60)
	if strings.Contains(words(m.View(now)), "on delete") {
		t.Error("a Stack that keeps its resources on delete is said to destroy them")
	}
}
