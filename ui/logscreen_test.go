package ui

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/model"
)

// logApp is the fixture app whose logs come from the demo control plane's
// pods, through the real log service.
func logApp(t *testing.T) (*App, chan tea.Msg) {
	a, ch, _ := logAppOn(t, 2*time.Millisecond)
	return a, ch
}

// logAppOn is logApp with the demo's followed logs adding a line every
// every, and the demo cluster.
func logAppOn(t *testing.T, every time.Duration) (*App, chan tea.Msg, *kube.Cluster) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := demo.Start(ctx, demo.Options{Timings: demo.Timings{DriftEvery: -1, LogEvery: every}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(demo.Cleanup)
	a, _ := newTestApp(t, 140, 30)
	a.opts.Logs = &logs.Service{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, Open: demo.LogOpener(c)}
	a.opts.Context = ctx
	return a, make(chan tea.Msg, 4096), c
}

func logScreenOf(a *App) *logScreen { s, _ := a.top().(*logScreen); return s }

func TestLogScreenOpensFromTheDetailOnTheStacksWorkspacePod(t *testing.T) {
	a, ch := logApp(t)
	selectUnit(t, a, "dns-zones")
	press(a, "enter")
	sendKey(a, ch, "O")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "Duration: 14s") })
	got := plain(a)
	for _, want := range []string{"pod/infra/dns-zones-workspace-0", "container pulumi", "does not exist", "following", "c container", "b previous instance", "S follow/hold"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log screen lacks %q:\n%s", want, got)
		}
	}
	sendKey(a, ch, "c")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "copying the agent") })
	if !strings.Contains(plain(a), "container bootstrap") {
		t.Errorf("c picks the next container:\n%s", plain(a))
	}
	sendKey(a, ch, "b")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "previous terminated container") })
	press(a, "esc")
	if topIs[*logScreen](a) {
		t.Fatal("esc closes the log screen")
	}
}

func TestLogScreenFollowsARunningUpdateAndSearches(t *testing.T) {
	a, ch := logApp(t)
	_, cmd := a.Update(openMsg{podLogsOf{logs.PodRef{Context: demo.ContextName, Namespace: "platform-infra", Name: "k8s-staging-workspace-0"}}})
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "Duration: 19s") })
	if got := plain(a); !strings.Contains(got, "following") || !strings.Contains(got, "created (1s)") {
		t.Fatalf("following, the newest lines are shown:\n%s", got)
	}
	press(a, "/")
	for _, r := range "UPDATED (7s)" {
		press(a, string(r))
	}
	press(a, "enter")
	s := logScreenOf(a)
	first := s.match
	if first < 0 || !strings.Contains(s.buf.At(first).Text, "updated (7s)") || !strings.Contains(plain(a), `2 lines match "UPDATED (7s)"`) || !strings.Contains(plain(a), "held") {
		t.Fatalf("search finds the case-insensitive match and holds the view (match %d):\n%s", first, plain(a))
	}
	press(a, "n")
	if s.match <= first || !strings.Contains(s.buf.At(s.match).Text, "updated (7s)") {
		t.Fatalf("n moves to the next match: %d after %d", s.match, first)
	}
	press(a, "N")
	if s.match != first {
		t.Fatalf("N moves back: %d, want %d", s.match, first)
	}
	press(a, "S")
	if !s.follow || !strings.Contains(plain(a), "following") {
		t.Fatal("S follows again")
	}
}

// c on a pod with one container says so instead of doing nothing.
func TestLogScreenSaysWhenThePodHasOneContainer(t *testing.T) {
	a, ch := logApp(t)
	_, cmd := a.Update(openMsg{podLogsOf{logs.PodRef{Context: demo.ContextName, Namespace: "search-indexer", Name: "search-indexer-reindex-8kq2d"}}})
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "container reindex") })
	sendKey(a, ch, "c")
	if got := plain(a); !strings.Contains(got, "only one container: reindex") {
		t.Errorf("c on a one-container pod must say so:\n%s", got)
	}
}

func TestLogScreenSaysWhenItsBufferDroppedLines(t *testing.T) {
	a, ch := logApp(t)
	_, cmd := a.Update(openMsg{podLogsOf{logs.PodRef{Context: demo.ContextName, Namespace: "search-indexer", Name: "search-indexer-reindex-8kq2d"}}})
	s := logScreenOf(a)
	s.buf = logs.NewBuffer(2 << 10)
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return s.buf.Dropped() > 0 && strings.Contains(plain(a), "(attempt 45)") })
	if got := plain(a); !strings.Contains(got, "older lines dropped: the view keeps the newest 2 KiB") {
		t.Fatalf("the screen must say lines were dropped:\n%s", got)
	}
	if s.buf.Bytes() > 2<<10 {
		t.Fatalf("the buffer holds %d bytes over its 2 KiB", s.buf.Bytes())
	}
}

// Opened before the workspace pod exists, the screen says so, and finds
// the pod when the Stack moves (its Update started).
func TestLogScreenFindsAPodThatAppearsLater(t *testing.T) {
	a, ch, c := logAppOn(t, 2*time.Millisecond)
	ctx := context.Background()
	pods := c.Kube.CoreV1().Pods("infra")
	pod, err := pods.Get(ctx, "dns-zones-workspace-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	u := selectUnit(t, a, "dns-zones")
	press(a, "enter")
	sendKey(a, ch, "O")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "Workspace dns-zones has no pod") })
	pod.ResourceVersion = ""
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, cmd := a.Update(unitsChangedMsg{changed: map[model.Key]bool{u.Key: true}})
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "Duration: 14s") })
	if strings.Contains(plain(a), "has no pod") {
		t.Errorf("the old error stays on screen:\n%s", plain(a))
	}
}

// The hook's log, held on a search match (the demo's followed lines come
// an hour apart here, so the screen is fixed).
func TestGoldenLogScreen(t *testing.T) {
	a, ch, _ := logAppOn(t, time.Hour)
	a.Update(teaSize(100, 30))
	_, cmd := a.Update(openMsg{podLogsOf{logs.PodRef{Context: demo.ContextName, Namespace: "search-indexer", Name: "search-indexer-reindex-8kq2d"}}})
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "(attempt 40)") })
	golden(t, "logs-following-100x30", a)
	press(a, "/")
	for _, r := range "attempt 3" {
		press(a, string(r))
	}
	press(a, "enter")
	golden(t, "logs-search-100x30", a)
}

// O on a Pod of the resource tree opens that Pod's log, in the context the
// tree's live objects came from.
func TestLogScreenOpensFromAPodOfTheResourceTree(t *testing.T) {
	a, be, s := openCheckoutTree(t)
	_, ch, c := logAppOn(t, time.Hour)
	a.opts.Logs = &logs.Service{Cluster: func(name string) (*kube.Cluster, bool) { return c, name == "prod-eu-1" }, Open: demo.LogOpener(c)}
	cursorTo(t, a, s, "Job", "migrate")
	press(a, "O")
	if topIs[*logScreen](a) || !strings.Contains(plain(a), "logs are of Pods") {
		t.Fatalf("O on a Job says logs are of Pods:\n%s", plain(a))
	}
	// The demo has the crash-looping payments-api pod: point the tree's Pod at it.
	be.tree.Context = "prod-eu-1"
	cursorTo(t, a, s, "Pod", "api-7f9c-crash")
	n := s.v.Selected()
	n.Namespace, n.Name = "payments-api", "payments-api-6d9f7c5b8-x2x9q"
	_, cmd := a.Update(keyMsg("O"))
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "already exists (SQLSTATE 42P07)") })
	if !strings.Contains(plain(a), "pod/payments-api/payments-api-6d9f7c5b8-x2x9q") {
		t.Fatalf("the tree's Pod's log:\n%s", plain(a))
	}
}

// sinceOpener is the demo's log opener, keeping the since window of each
// stream the log service opens (what it asks the API server for).
type sinceOpener struct {
	logs.Opener
	mu   sync.Mutex
	seen []time.Duration
}

func (o *sinceOpener) Open(ctx context.Context, c *kube.Cluster, p logs.PodRef, opts logs.Options) (io.ReadCloser, error) {
	o.mu.Lock()
	o.seen = append(o.seen, opts.Since)
	o.mu.Unlock()
	return o.Opener.Open(ctx, c, p, opts)
}

func (o *sinceOpener) last() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.seen) == 0 {
		return -1
	}
	return o.seen[len(o.seen)-1]
}

func TestLogScreenSinceKeyCyclesTheWindowShownInTheHeader(t *testing.T) {
	a, ch, c := logAppOn(t, 2*time.Millisecond)
	rec := &sinceOpener{Opener: demo.LogOpener(c)}
	a.opts.Logs = &logs.Service{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, Open: rec}
	_, cmd := a.Update(openMsg{podLogsOf{logs.PodRef{Context: demo.ContextName, Namespace: "platform-infra", Name: "k8s-staging-workspace-0"}}})
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "Duration: 19s") })
	if got := plain(a); strings.Contains(got, "· since") || !strings.Contains(got, "m since") || rec.last() != 0 {
		t.Fatalf("the whole log at first, the header and the hints saying so (asked since %v):\n%s", rec.last(), got)
	}
	for _, want := range []struct {
		word string
		d    time.Duration
	}{{"1m", time.Minute}, {"5m", 5 * time.Minute}, {"15m", 15 * time.Minute}, {"1h", time.Hour}} {
		sendKey(a, ch, "m")
		deliver(t, a, ch, func() bool { return rec.last() == want.d && strings.Contains(plain(a), "· since "+want.word+" ·") })
	}
	sendKey(a, ch, "m")
	deliver(t, a, ch, func() bool { return rec.last() == 0 && !strings.Contains(plain(a), "· since") })
	press(a, "?")
	if got := plain(a); !strings.Contains(got, "m since 1m/5m/15m/1h/all") {
		t.Fatalf("help lists the since key:\n%s", got)
	}
}

// A log read through Argo CD's API server names no containers: the screen
// says the pod's default is shown, and c says why it picks none.
func TestALogThroughArgoCDsAPIServerShowsThePodsDefaultContainer(t *testing.T) {
	a, _ := newTestApp(t, 140, 30)
	a.opts.Logs = &argoLog{}
	ch := make(chan tea.Msg, 64)
	app := model.Key{Context: "prod-eu-1", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "checkout"}
	_, cmd := a.Update(openMsg{podLogsOf{logs.PodRef{Context: "prod-eu-1", Namespace: "shop", Name: "api-0", App: app}}})
	async(cmd, ch)
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "listening on :8080") })
	if got := plain(a); !strings.Contains(got, "container (the pod's default)") {
		t.Errorf("the header must say which container is shown:\n%s", got)
	}
	sendKey(a, ch, "c")
	if got := plain(a); !strings.Contains(got, "names no containers") {
		t.Errorf("c must say why it picks none:\n%s", got)
	}
}

// argoLog is a pod's log as the Argo CD API route gives it: one line, no
// containers named.
type argoLog struct{}

func (argoLog) Targets(context.Context, model.Key) ([]logs.Target, error) { return nil, logs.ErrNoPod }
func (argoLog) Pod(_ context.Context, p logs.PodRef) (logs.Target, error) {
	return logs.Target{Pod: p}, nil
}
func (argoLog) Stream(_ context.Context, _ logs.PodRef, _ logs.Options, each func(logs.Line)) error {
	each(logs.Line{Text: "listening on :8080"})
	return nil
}

// O on a Kustomization's detail opens kustomize-controller's log narrowed
// to the Kustomization's lines, read as flux logs prints them.
func TestLogScreenOfAKustomizationIsTheControllersLinesAboutIt(t *testing.T) {
	a, _ := newFluxTestAppWith(t, 160, 30)
	_, ch, c := logAppOn(t, time.Hour)
	a.opts.Logs = &logs.Service{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, Open: demo.LogOpener(c)}
	a.opts.Context = context.Background()
	selectUnit(t, a, "web-frontend")
	press(a, "enter")
	if !strings.Contains(plain(a), "O logs") {
		t.Errorf("the detail's footer does not offer the log:\n%s", plain(a))
	}
	sendKey(a, ch, "O")
	deliver(t, a, ch, func() bool { return strings.Contains(plain(a), "next try in 10m") })
	got := plain(a)
	for _, want := range []string{"kustomize-controller", "the lines about Kustomization team-web/web-frontend", "error Reconciliation failed", "kustomize build failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log screen lacks %q:\n%s", want, got)
		}
	}
	for _, other := range []string{"Reconciliation finished", "starting manager", `"level"`} {
		if strings.Contains(got, other) {
			t.Errorf("the log screen shows %q, a line about another object or raw JSON:\n%s", other, got)
		}
	}
}
