package diff

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	engine "github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/themes"
)

var update = flag.Bool("update", false, "rewrite the golden screens")

const revision = "53e28ff20cc530b9ada2173fbbd64d48338583ba"

func parse(t testing.TB, y string) map[string]any {
	t.Helper()
	objs, err := engine.Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return objs[0]
}

func deployment(replicas int, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: %d
  revisionHistoryLimit: 10
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: %s
        imagePullPolicy: IfNotPresent
        ports: [{containerPort: 80, protocol: TCP}]
      restartPolicy: Always
`, replicas, image)
}

// sampleReport is what a typical sync would change: a scaled and updated
// Deployment, a new and a pruned ConfigMap, a rotated Secret, and an
// unchanged Service.
func sampleReport(t testing.TB) *engine.Report {
	t.Helper()
	svc := parse(t, "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {ports: [{port: 80}]}\n")
	pairs := []engine.Pair{
		{Live: parse(t, deployment(1, "nginx:1.27")), Desired: parse(t, deployment(3, "nginx:1.28"))},
		{Desired: parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: default}\ndata: {GREETING: hello, MODE: fast}\n")},
		{Live: parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: retired, namespace: default}\ndata: {legacy: \"true\"}\n")},
		{Live: parse(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: web-secret, namespace: default}\ndata: {password: aHVudGVyMg==}\n"),
			Desired: parse(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: web-secret, namespace: default}\ndata: {password: c3dvcmRmaXNo}\n")},
		{Live: svc, Desired: svc},
	}
	r, err := engine.Objects(pairs, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newModel(t testing.TB, w, h int) *Model {
	t.Helper()
	m := New(themes.Dark())
	m.SetSize(w, h)
	m.SetReport(sampleReport(t), revision)
	m.SetSource("local render of https://git.example.com/apps.git@53e28ff20cc5")
	return m
}

// shape renders the view and checks its shape: exactly h lines, none wider
// than w. It returns the lines without styling.
func shape(t *testing.T, m *Model, w, h int) []string {
	t.Helper()
	out := m.View()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), h, ansi.Strip(out))
	}
	for i, l := range lines {
		if cw := ansi.StringWidth(l); cw > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, cw, w, ansi.Strip(l))
		}
		lines[i] = ansi.Strip(l)
	}
	return lines
}

func golden(t *testing.T, name string, lines []string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("screen differs from %s:\n%s", path, got)
	}
}

func containsLine(lines []string, parts ...string) bool {
	for _, l := range lines {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestViewUnified(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m := newModel(t, size.w, size.h)
			lines := shape(t, m, size.w, size.h)
			golden(t, fmt.Sprintf("unified-%dx%d", size.w, size.h), lines)

			if !strings.Contains(lines[0], "revision 53e28ff20cc5") || !strings.Contains(lines[0], "1 added") ||
				!strings.Contains(lines[0], "2 modified") || !strings.Contains(lines[0], "1 removed") || !strings.Contains(lines[0], "1 unchanged") {
				t.Errorf("header %q", lines[0])
			}
			// The summary names each changed object with its change, counts and fields.
			for _, want := range [][]string{
				{"~ Deployment.apps default/web", "modified", "+2 -2", "spec.replicas, spec.tem"},
				{"+ ConfigMap default/web-config", "added"},
				{"- ConfigMap default/retired", "removed"},
				{"~ Secret default/web-secret", "modified", "data.password"},
			} {
				if !containsLine(lines, want...) {
					t.Errorf("no summary line with %q", want)
				}
			}
			if size.w >= 120 && !containsLine(lines, "spec.replicas, spec.template.spec.containers[0].image") {
				t.Error("the wide summary does not list every changed field")
			}
			if containsLine(lines, "Service") {
				t.Error("the unchanged Service is listed")
			}
			// At the Deployment, the hunk carries both line numbers and the change.
			m.NextObject(2)
			lines = shape(t, m, size.w, size.h)
			golden(t, fmt.Sprintf("unified-deployment-%dx%d", size.w, size.h), lines)
			if !containsLine(lines, "@@ -") || !containsLine(lines, "10    -  replicas: 1") || !containsLine(lines, "   10 +  replicas: 3") {
				t.Errorf("no unified hunk with the numbered replica change:\n%s", strings.Join(lines, "\n"))
			}
			// The source is named whole: in the footer when it fits there,
			// else above the objects, read by scrolling to the top.
			footer := lines[len(lines)-1]
			if !strings.HasPrefix(footer, "unified") || strings.Contains(footer, "…") {
				t.Errorf("footer %q", footer)
			}
			m.Scroll(-1000)
			if top := shape(t, m, size.w, size.h); !strings.Contains(strings.Join(top, "\n"), "local render of https://git.example.com/apps.git@53e28ff20cc5") {
				t.Errorf("the source is not named whole:\n%s", strings.Join(top, "\n"))
			}
		})
	}
}

func TestViewSideBySide(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m := newModel(t, size.w, size.h)
			m.ToggleSideBySide()
			if !m.SideBySide() {
				t.Fatal("not side by side")
			}
			m.NextObject(2)
			lines := shape(t, m, size.w, size.h)
			golden(t, fmt.Sprintf("sidebyside-%dx%d", size.w, size.h), lines)
			// Old and new replica counts face each other on one row.
			if !containsLine(lines, "-  replicas: 1", "│", "+  replicas: 3") {
				t.Errorf("no row pairing the replica change:\n%s", strings.Join(lines, "\n"))
			}
			if !strings.HasPrefix(lines[len(lines)-1], "side by side") {
				t.Errorf("footer %q", lines[len(lines)-1])
			}
			m.ToggleSideBySide()
			if m.SideBySide() || !containsLine(shape(t, m, size.w, size.h), "10    -  replicas: 1") {
				t.Error("toggling back did not return to unified")
			}
		})
	}
}

// longValueModel is the diff of a ConfigMap value changing from live to
// desired, on an 80x24 screen.
func longValueModel(t *testing.T, live, desired string) *Model {
	t.Helper()
	r, err := engine.Objects([]engine.Pair{{
		Live:    parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: "+live+"}\n"),
		Desired: parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: "+desired+"}\n"),
	}}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(themes.Dark())
	m.SetSize(80, 24)
	m.SetReport(r, "")
	return m
}

func TestSideBySideWrapsLongLines(t *testing.T) {
	long := strings.Repeat("x", 150)
	m := longValueModel(t, "a"+long, "b"+long)
	m.ToggleSideBySide()
	lines := shape(t, m, 80, 24)
	// The 150-character value continues on following rows rather than
	// being cut: all of it is on screen.
	if n := strings.Count(strings.Join(lines, ""), "x"); n < 2*150 {
		t.Errorf("only %d of the %d x's are on screen", n, 2*150)
	}
}

func TestScrollAndObjectJumps(t *testing.T) {
	const w, h = 80, 24
	m := newModel(t, w, h)
	if i, d := m.CurrentObject(); i != 0 || d.Key.Name != "retired" {
		t.Fatalf("current object %d %v at the top", i, d)
	}
	bodyStart := 1 + m.layout().summary + 1 // header, summary, rule

	m.NextObject(1)
	if i, _ := m.CurrentObject(); i != 1 {
		t.Errorf("after next object: %d", i)
	}
	lines := shape(t, m, w, h)
	if !strings.HasPrefix(lines[bodyStart], "+ ConfigMap default/web-config") {
		t.Errorf("the body does not start at the next object's banner: %q", lines[bodyStart])
	}
	// The summary marks the object on screen, and only that one.
	selected, _, _ := strings.Cut(m.theme.Selected.Render("X"), "X")
	for _, l := range strings.Split(m.View(), "\n")[1 : bodyStart-1] {
		if strings.HasPrefix(l, selected) != strings.Contains(ansi.Strip(l), "ConfigMap default/web-config") {
			t.Errorf("summary row highlighted wrongly: %q", l)
		}
	}

	m.Scroll(2)
	m.NextObject(-1)
	if i, _ := m.CurrentObject(); i != 1 || !strings.HasPrefix(shape(t, m, w, h)[bodyStart], "+ ConfigMap default/web-config") {
		t.Errorf("back from inside an object should return to its start, at object %d", i)
	}
	m.NextObject(-1)
	if i, _ := m.CurrentObject(); i != 0 {
		t.Errorf("previous object: %d", i)
	}
	for range 10 {
		m.NextObject(1)
	}
	if i, d := m.CurrentObject(); i != 3 || d.Key.Kind != "Secret" {
		t.Errorf("jumping past the end stops at the last object, got %d", i)
	}

	lines = shape(t, m, w, h)
	if !strings.HasPrefix(lines[bodyStart], "~ Secret default/web-secret") {
		t.Errorf("the last object, though short, is not at the top: %q", lines[bodyStart])
	}
	m.Scroll(1 << 30)
	lines = shape(t, m, w, h)
	if !strings.Contains(lines[h-1], fmt.Sprintf("-%d of %d", m.doc.rows, m.doc.rows)) || !strings.HasPrefix(lines[bodyStart], "~ Secret") {
		t.Errorf("scrolled to the end, footer %q, body from %q", lines[h-1], lines[bodyStart])
	}
	m.Scroll(-1 << 30)
	if lines := shape(t, m, w, h); !strings.Contains(lines[h-1], "rows 1-") {
		t.Errorf("scrolled to the top, footer %q", lines[h-1])
	}
}

func TestHeaderSaysApproximate(t *testing.T) {
	m := newModel(t, 120, 10)
	r := *m.Report()
	r.Approximate = true
	m.SetReport(&r, revision)
	if lines := shape(t, m, 120, 10); !strings.Contains(lines[0], "approximate") {
		t.Errorf("header %q", lines[0])
	}
}

func TestStatesWithoutChanges(t *testing.T) {
	m := New(themes.Dark())
	m.SetSize(60, 5)
	if lines := shape(t, m, 60, 5); !strings.Contains(lines[1], "computing the diff") {
		t.Errorf("before a report: %q", lines)
	}
	r, _ := engine.Objects(nil, engine.Options{})
	m.SetReport(r, revision)
	if lines := shape(t, m, 60, 5); !strings.Contains(lines[1], "no changes") {
		t.Errorf("empty report: %q", lines)
	}
	m.SetError(fmt.Errorf("a Helm source is not supported locally"))
	if lines := shape(t, m, 60, 5); !strings.Contains(lines[1], "cannot compute the diff: a Helm source") {
		t.Errorf("error: %q", lines)
	}
}

func TestWarningsAreShownEscaped(t *testing.T) {
	m := newModel(t, 120, 24)
	m.SetWarnings([]string{"Widget gizmo: the cluster does not serve this kind\x1b[2J\x1b]0;pwned\x07"})
	out := m.View()
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x1b]0;") {
		t.Error("a control sequence from a warning reached the terminal")
	}
	if !containsLine(shape(t, m, 120, 24), `! Widget gizmo: the cluster does not serve this kind\x1b[2J\x1b]0;pwned\x07`) {
		t.Errorf("the warning is not shown with its sequences escaped:\n%s", ansi.Strip(out))
	}
}

func TestAnErrorFromTheRenderIsShownEscaped(t *testing.T) {
	m := newModel(t, 120, 10)
	m.SetError(fmt.Errorf("kustomize build: \x1b]52;c;aGk=\x07 and \x1b]0;pwned\x07"))
	out := m.View()
	if strings.ContainsAny(out, "\x07") || strings.Contains(out, "\x1b]") {
		t.Fatal("an OSC sequence from the error reached the terminal")
	}
	if !strings.Contains(ansi.Strip(out), `kustomize build: \x1b]52;c;aGk=\x07 and \x1b]0;pwned\x07`) {
		t.Errorf("the error is not shown escaped:\n%s", ansi.Strip(out))
	}
}

func TestTinyAndWideScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{1, 1}, {10, 2}, {20, 3}, {30, 7}, {40, 9}, {300, 5}} {
		m := newModel(t, size.w, size.h)
		shape(t, m, size.w, size.h)
		m.ToggleSideBySide()
		shape(t, m, size.w, size.h)
	}
	m := newModel(t, 80, 0)
	if m.View() != "" {
		t.Error("a zero-height view is not empty")
	}
}

func TestWideCharactersKeepTheWidth(t *testing.T) {
	r, err := engine.Objects([]engine.Pair{{
		Live:    parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 設定}\ndata: {greeting: "+strings.Repeat("こんにちは", 20)+"}\n"),
		Desired: parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 設定}\ndata: {greeting: "+strings.Repeat("さようなら", 20)+"}\n"),
	}}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(themes.Dark())
	m.SetSize(81, 20)
	m.SetReport(r, "main")
	shape(t, m, 81, 20)
	m.ToggleSideBySide()
	shape(t, m, 81, 20)
}

// A unified line wider than the screen is cut and marked, the view says so,
// and the wrap key shows the whole of it, the changed value included, on
// the rows below; the numbers and marker stay on its first row.
func TestUnifiedLongLinesAreOneKeyFromWhole(t *testing.T) {
	long := strings.Repeat("y", 150)
	m := longValueModel(t, long+"-old-end", long+"-new-end")
	lines := shape(t, m, 80, 24)
	if !m.Cut() || !containsLine(lines, "+  k: yyy", "…") || containsLine(lines, "new-end") {
		t.Fatalf("the long line is not cut and marked (cut reported: %v):\n%s", m.Cut(), strings.Join(lines, "\n"))
	}
	m.ToggleWrap()
	lines = shape(t, m, 80, 24)
	all := strings.Join(lines, "\n")
	if m.Cut() || !m.Wrapping() || !strings.Contains(all, "-new-end") || !strings.Contains(all, "-old-end") {
		t.Fatalf("wrapped, the whole line is not on screen (cut: %v):\n%s", m.Cut(), all)
	}
	if n := strings.Count(all, "y"); n < 2*150 {
		t.Errorf("only %d of the %d y's are on screen", n, 2*150)
	}
	if !containsLine(lines, "+  k: yyy") || containsLine(lines, "+ yyy") {
		t.Errorf("the marker is not on the first row only:\n%s", all)
	}
	m.ToggleWrap()
	if shape(t, m, 80, 24); !m.Cut() {
		t.Error("wrapping off again, the line is not cut")
	}
}

// A warning longer than the screen is shown whole over several rows.
func TestLongWarningsWrapWhole(t *testing.T) {
	m := newModel(t, 60, 30)
	m.SetWarnings([]string{"the source has a newer revision main@sha1:257a6ef3430c2f0ffe824cf80c030043ed7ce26c than the one built: the next reconcile applies that one"})
	all := strings.Join(shape(t, m, 60, 30), "\n")
	if !strings.Contains(all, "applies that one") {
		t.Errorf("the end of the warning is not on screen:\n%s", all)
	}
}
