package ui

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

var update = flag.Bool("update", false, "rewrite the golden screens")

var fixedNow = time.Date(2026, 11, 29, 3, 14, 0, 0, time.UTC)

func fixtureUnits() []*model.Unit {
	mk := func(engine model.Engine, ns, name string, f func(u *model.Unit)) *model.Unit {
		u := &model.Unit{Key: model.Key{Context: "prod-eu-1", Engine: engine, Namespace: ns, Name: name},
			Sync: model.InSync, Health: model.Healthy, Automation: model.SelfHeal, Run: model.Idle, Observed: model.Idle,
			RunSince: fixedNow.Add(-26 * time.Hour), Applied: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", Desired: "main", Kind: "Application"}
		if engine == model.EngineArgoCD {
			u.Argo = &model.ArgoFacts{AutoSync: true, AutomatedSet: true, SelfHeal: true, TargetRevision: "main",
				RepoURL: "https://git.example.com/platform.git", Path: "apps/" + name, DestServer: "https://kubernetes.default.svc", DestNamespace: ns}
		} else {
			u.Kind = "Stack"
			u.Stack = &model.StackFacts{StackName: "acme/" + name + "/prod", Commit: u.Applied}
		}
		f(u)
		return u
	}
	return []*model.Unit{
		mk(model.EngineArgoCD, "argocd", "billing", func(u *model.Unit) {
			u.Sync, u.Run, u.Observed = model.Drifted, model.BlockedByWindow, model.BlockedByWindow
			u.RunReason = `sync blocked: deny window "0 2 * * *" for 4h active until 06:00 UTC; manual syncs allowed`
		}),
		mk(model.EngineArgoCD, "argocd", "checkout", func(*model.Unit) {}),
		mk(model.EngineArgoCD, "argocd", "search-indexer", func(u *model.Unit) {
			u.Sync, u.Health, u.Run, u.Observed = model.Drifted, model.Progressing, model.Stuck, model.Running
			u.RunSince = fixedNow.Add(-26 * time.Minute)
			u.RunReason = "sync running: waiting for healthy state of apps/StatefulSet/search-indexer"
			u.StuckRule = "running for longer than the 10m threshold"
			u.Argo.Phase, u.Argo.OperationSet, u.Argo.StartedAt = "Running", true, fixedNow.Add(-26*time.Minute)
			u.Argo.PhaseMessage = "waiting for healthy state of apps/StatefulSet/search-indexer"
		}),
		mk(model.EngineArgoCD, "team-payments", "payments-api", func(u *model.Unit) {
			u.Sync, u.Health, u.Run, u.Observed = model.Drifted, model.Degraded, model.Failed, model.Failed
			u.RunSince = fixedNow.Add(-3 * time.Minute)
			u.RunReason = `last sync failed: Deployment.apps "payments-api" is invalid: spec.template.spec.containers[0].image: Required value`
		}),
		mk(model.EngineArgoCD, "argocd", "kyverno", func(u *model.Unit) {
			u.Automation = model.Paused
			u.Pause = &model.PauseRecord{By: "sre-lead@example.com", Reason: "INC-4412: policy rollout", At: fixedNow.Add(-3 * time.Hour), Until: fixedNow.Add(-time.Hour), Mode: "auto-sync", Previous: `{"selfHeal":true}`}
		}),
		mk(model.EnginePulumi, "infra", "edge-cdn", func(u *model.Unit) {
			u.Automation, u.Sync, u.Run, u.Observed = model.Manual, model.Drifted, model.AwaitingApproval, model.AwaitingApproval
			u.RunSince = fixedNow.Add(-12 * time.Minute)
			u.RunReason = "commit 36d86fd656c2 proposed; the Stack stays pinned at 3a7094c661ea until approved"
		}),
		mk(model.EnginePulumi, "infra", "dns-zones", func(u *model.Unit) {
			u.Run, u.Observed, u.Health = model.Stuck, model.Stuck, model.Progressing
			u.RunSince = fixedNow.Add(-6 * time.Minute)
			u.RunReason = "currentUpdate names Update dns-zones-1a2285a29ab, which does not exist"
		}),
	}
}

func newTestApp(t testing.TB, w, h int) (*App, *fakeBackend) {
	t.Helper()
	be := &fakeBackend{}
	batch := store.Batch{Units: fixtureUnits(), Status: []store.ContextStatus{{
		Context: "prod-eu-1", Identity: "oncall@example.com", Connected: true, Synced: true, LastEvent: fixedNow,
	}}}
	a := New(Options{Backend: be, Theme: "dark", Initial: batch, Now: func() time.Time { return fixedNow }})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, be
}

// press sends keys and runs the commands they return, feeding their
// messages back as the program would; commands that wait (cursor blink,
// timers) are not run.
func press(a *App, keys ...string) {
	for _, k := range keys {
		_, cmd := a.Update(keyMsg(k))
		run(a, cmd, 0)
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// typeText types into the focused input; what typing returns is only the
// cursor's blink, which is not run.
func typeText(a *App, s string) {
	for _, r := range s {
		a.Update(keyMsg(string(r)))
	}
}

// run runs cmd as the program would and feeds what it returns back, to a
// depth of 5. A timer (tea.Tick: the clock, a paced re-read) or a cursor's
// blink is not run: it waits, and no golden depends on what it brings.
// Everything else is an answer, waited for however long a busy machine
// takes: a golden must never depend on how fast the fake answered.
func run(a *App, cmd tea.Cmd, depth int) { runHoldingPlans(a, cmd, depth, nil) }

// runHoldingPlans is run with the plans' answers held back in held, in the
// order asked, as on a slow link (nil held: fed back as run does).
func runHoldingPlans(a *App, cmd tea.Cmd, depth int, held *[]planMsg) {
	if cmd == nil || depth > 5 || waits(cmd) {
		return
	}
	msg := cmd()
	if p, ok := msg.(planMsg); ok && held != nil {
		*held = append(*held, p)
		return
	}
	switch m := msg.(type) {
	case tea.BatchMsg:
		for _, c := range m {
			runHoldingPlans(a, c, depth+1, held)
		}
	case tickMsg, nil:
	default:
		_, next := a.Update(m)
		runHoldingPlans(a, next, depth+1, held)
	}
}

// waits tells a command that only waits for time to pass by the function
// it is: a closure of tea.Tick or of the cursor's blink.
func waits(cmd tea.Cmd) bool {
	name := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
	return strings.HasPrefix(name, "charm.land/bubbletea/v2.Tick.") || strings.HasPrefix(name, "charm.land/bubbles/v2/cursor.")
}

// screen renders the view as a terminal with 256 colours would get it.
func screenText(a *App) string {
	var b bytes.Buffer
	w := &colorprofile.Writer{Forward: &b, Profile: colorprofile.ANSI256}
	_, _ = w.WriteString(a.View().Content)
	return b.String()
}

func golden(t *testing.T, name string, a *App) {
	t.Helper()
	got := screenText(a)
	for _, g := range []struct{ ext, content string }{{".ansi", got}, {".txt", ansi.Strip(got)}} {
		path := filepath.Join("testdata", "golden", name+g.ext)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(g.content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./ui -update to create it)", err)
		}
		if string(want) != g.content {
			t.Errorf("%s differs from the golden screen (go test ./ui -update rewrites it):\n--- got\n%s\n--- want\n%s", path, ansi.Strip(got), ansi.Strip(string(want)))
		}
	}
}

func TestGoldenList(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 30}} {
		a, _ := newTestApp(t, size.w, size.h)
		golden(t, "list-"+itoa(size.w)+"x"+itoa(size.h), a)
	}
}

func TestGoldenDetail(t *testing.T) {
	a, _ := newTestApp(t, 100, 32)
	press(a, "j", "j", "enter")
	golden(t, "detail-overview-100x32", a)
	press(a, "tab", "tab")
	golden(t, "detail-history-100x32", a)
}

func TestGoldenHelp(t *testing.T) {
	a, _ := newTestApp(t, 100, 40)
	press(a, "?")
	golden(t, "help-100x40", a)
}

func TestGoldenConfirmDialog(t *testing.T) {
	a, _ := newTestApp(t, 100, 30)
	press(a, "j", "p")
	typeText(a, "INC-5150: hotfix in place")
	press(a, "enter")
	typeText(a, "2h")
	press(a, "enter")
	golden(t, "confirm-pause-100x30", a)
}
