package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/tree"
)

type statusOpts struct {
	engines []string
	states  []string
}

func newStatusCmd(g *globals) *cobra.Command {
	o := &statusOpts{}
	cmd := &cobra.Command{
		Use:   "status [<engine>/<namespace>/<name>...]",
		Short: "Print every unit (or the units named) once, with its states and reasons",
		Long: `Print the live model once and exit: one line (or JSON record) per unit.
Named units are printed in the order named; a name that matches no unit is an
error (exit 5) after the units found are printed.

Reasons are printed whole, except on a terminal, where every row is cut with …
to fit its width, the reason first; -o wide prints them whole there too, with
the sync step of a running Argo CD sync (its phase, and the wave of the
resource it waits on among the app's waves), the stuck rule and the owner. Text from the cluster is shown with control characters
and escape sequences made visible; -o json keeps it as it is, JSON-escaped.`,
		Example: `  driftdeck status -A
  driftdeck status argocd/argocd/guestbook pulumi/infra/network-prod
  driftdeck status -n argocd --engine argocd --state stuck,failed
  driftdeck status -o wide | grep stuck
  driftdeck status -o json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runStatus(cmd.Context(), g, o, args) },
	}
	cmd.Flags().StringVarP(&g.output, "output", "o", "table", "output format: table, wide (whole reasons, sync step, stuck rule, owner) or json")
	cmd.Flags().StringSliceVar(&o.engines, "engine", nil, engineFlagHelp())
	cmd.Flags().StringSliceVar(&o.states, "state", nil, "only units in these run states (idle, running, stuck, failed, awaiting, blocked) or sync/health words (drifted, degraded, paused)")
	return cmd
}

func runStatus(ctx context.Context, g *globals, o *statusOpts, names []string) error {
	if err := g.checkOutput("table", "wide", "json"); err != nil {
		return err
	}
	keep, err := unitFilter(o.engines, o.states)
	if err != nil {
		return usageError(err)
	}
	if g.engines, err = readEngines(o.engines); err != nil {
		return usageError(err)
	}
	wanted, err := parseNames(names)
	if err != nil {
		return err
	}
	return withLiveModel(ctx, g, func(ctx context.Context, f *fleet.Fleet, all []*model.Unit) error {
		named, missing := all, error(nil)
		if len(wanted) > 0 {
			named, missing = pickNamed(all, wanted)
		}
		var units []*model.Unit
		for _, u := range named {
			if keep(u) {
				units = append(units, u)
			}
		}
		now := time.Now()
		ends := pauseEnds(ctx, f.Cluster, units, now)
		if g.output == "json" {
			return errors.Join(printJSON(g, units, tree.Build(all), ends, now), missing)
		}
		if len(units) == 0 && missing != nil {
			return missing // as kubectl get: no empty table above the error
		}
		layout := tableLayout{withContext: len(f.Contexts()) > 1, wide: g.output == "wide"}
		if !layout.wide {
			layout.width = g.terminalWidth()
		}
		return errors.Join(printTable(g, units, ends, now, layout), missing)
	})
}

// checkOutput refuses an -o the command does not print, naming those it does.
func (g *globals) checkOutput(formats ...string) error {
	if slices.Contains(formats, g.output) {
		return nil
	}
	want := formats[len(formats)-1]
	if len(formats) > 1 {
		want = strings.Join(formats[:len(formats)-1], ", ") + " or " + want
	}
	return usageError(fmt.Errorf("--output %q: want %s", g.output, want))
}

// withLiveModel runs use on the live model of the selected contexts, the
// connection and use together bounded by the request timeout (60s unless
// --request-timeout says otherwise).
func withLiveModel(ctx context.Context, g *globals, use func(ctx context.Context, f *fleet.Fleet, units []*model.Unit) error) error {
	ctx, cancel := context.WithTimeout(ctx, g.requestTimeout(60*time.Second))
	defer cancel()
	f, units, err := liveModel(ctx, g)
	if err != nil {
		return err
	}
	return use(ctx, f, units)
}

// liveModel connects the selected contexts and returns every unit once
// every watch delivered its first list.
func liveModel(ctx context.Context, g *globals) (*fleet.Fleet, []*model.Unit, error) {
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return nil, nil, usageError(err)
	}
	f, err := connect(ctx, g, cfg.StuckThresholds(), false)
	if err != nil {
		return nil, nil, err
	}
	if err := awaitModel(ctx, g, f); err != nil {
		return nil, nil, err
	}
	f.Store.Tick()
	return f, f.Store.Snapshot(), nil
}

// engineFlagHelp is --engine's help: every engine the command line names.
func engineFlagHelp() string {
	names := make([]string, len(model.Engines))
	for i, e := range model.Engines {
		names[i] = string(e)
	}
	return "only these engines (" + strings.Join(names, ", ") + ")"
}

// readEngines are the engines --engine names, nil for every engine: what
// is not asked for is not read at all.
func readEngines(names []string) ([]model.Engine, error) {
	var out []model.Engine
	for _, n := range names {
		e, err := model.ParseEngine(n)
		if err != nil {
			return nil, fmt.Errorf("--engine: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// unitFilter builds the --engine/--state filter.
func unitFilter(engines, states []string) (func(*model.Unit) bool, error) {
	wantEngine := map[model.Engine]bool{}
	for _, e := range engines {
		eng, err := model.ParseEngine(e)
		if err != nil {
			return nil, fmt.Errorf("--engine: %w", err)
		}
		wantEngine[eng] = true
	}
	var checks []func(*model.Unit) bool
	for _, s := range states {
		c, err := stateCheck(strings.ToLower(strings.TrimSpace(s)))
		if err != nil {
			return nil, err
		}
		checks = append(checks, c)
	}
	return func(u *model.Unit) bool {
		if len(wantEngine) > 0 && !wantEngine[u.Key.Engine] {
			return false
		}
		if len(checks) == 0 {
			return true
		}
		for _, c := range checks {
			if c(u) {
				return true
			}
		}
		return false
	}, nil
}

func stateCheck(s string) (func(*model.Unit) bool, error) {
	if r, ok := model.ParseRunState(s); ok {
		return func(u *model.Unit) bool { return u.Run == r }, nil
	}
	switch s {
	case "drifted", "outofsync":
		return func(u *model.Unit) bool { return u.Sync == model.Drifted }, nil
	case "degraded":
		return func(u *model.Unit) bool { return u.Health == model.Degraded }, nil
	case "paused":
		return func(u *model.Unit) bool { return u.Automation == model.Paused }, nil
	case "suspended":
		return func(u *model.Unit) bool { return u.Automation == model.Suspended }, nil
	case "unreadable":
		return func(u *model.Unit) bool { return len(u.ReadErrors) > 0 }, nil
	}
	return nil, fmt.Errorf("--state %q: want a run state (idle, running, stuck, failed, awaiting, blocked) or drifted, degraded, paused, suspended, unreadable", s)
}

// tableLayout is how the status table is drawn.
type tableLayout struct {
	withContext bool // several contexts: a CONTEXT column
	wide        bool // -o wide: stuck rule, owner and pause-end columns
	width       int  // a terminal's width without -o wide: rows cut to fit it; 0: whole
}

// reasonWidth is where the tree cuts a reason.
const reasonWidth = 100

func printTable(g *globals, units []*model.Unit, ends map[model.Key]string, now time.Time, l tableLayout) error {
	head := []string{"UNIT", "SYNC", "HEALTH", "AUTOMATION", "RUN", "SINCE", "REVISION"}
	if l.withContext {
		head = append([]string{"CONTEXT"}, head...)
	}
	if l.wide {
		head = append(head, "SYNC STEP", "RULE", "OWNER", "PAUSE ENDS")
	}
	rows := [][]string{append(head, "REASON")}
	for _, u := range units {
		reason := u.Reason()
		if l.width > 0 {
			reason = firstLine(reason)
		}
		row := []string{u.Key.Ref(), u.Sync.String(), u.Health.String(), automationWord(u, now), u.Run.String(),
			age(u.RunSince, now), shortRev(u.Applied)}
		if l.withContext {
			row = append([]string{u.Key.Context}, row...)
		}
		if l.wide {
			row = append(row, syncStepCell(u), orDash(u.StuckRule), orDash(u.Owner), orDash(ends[u.Key]))
		}
		row = append(row, reason)
		for i, cell := range row {
			row[i] = safetext.Visible(cell)
		}
		rows = append(rows, row)
	}
	if err := writeColumns(g.out, rows, slices.Index(head, "UNIT"), l.width); err != nil {
		return err
	}
	if len(units) == 0 {
		_, err := fmt.Fprintln(g.out, "(no units)")
		return err
	}
	return nil
}

// unitRecord is the -o json shape: one record per unit.
type unitRecord struct {
	Unit             string     `json:"unit"`
	Context          string     `json:"context"`
	Engine           string     `json:"engine"`
	Namespace        string     `json:"namespace"`
	Name             string     `json:"name"`
	Kind             string     `json:"kind"`
	Sync             string     `json:"sync"`
	SyncNative       string     `json:"syncNative,omitempty"`
	Health           string     `json:"health"`
	HealthNative     string     `json:"healthNative,omitempty"`
	Automation       string     `json:"automation"`
	AutomationNative string     `json:"automationNative,omitempty"`
	Run              string     `json:"run"`
	RunSince         *time.Time `json:"runSince,omitempty"`
	Reason           string     `json:"reason,omitempty"`
	StuckRule        string     `json:"stuckRule,omitempty"`
	Window           string     `json:"syncWindow,omitempty"`
	Desired          string     `json:"desiredRevision,omitempty"`
	Applied          string     `json:"appliedRevision,omitempty"`
	Owner            string     `json:"owner,omitempty"`
	// Parents are the units this one sits under (ApplicationSet, app of
	// apps, prerequisite, dependency), the one the tree shows it under
	// first; empty for a root.
	Parents []string    `json:"parents"`
	Pause   *pauseJSON  `json:"pause,omitempty"`
	Source  *sourceJSON `json:"source,omitempty"`
	// Reconcile, Terraform and HelmRelease are the Flux and tofu-controller
	// fields a script acts on (status_flux.go).
	Reconcile   *reconcileJSON   `json:"reconcile,omitempty"`
	Terraform   *terraformJSON   `json:"terraform,omitempty"`
	HelmRelease *helmReleaseJSON `json:"helmRelease,omitempty"`
	// Root is a root module's state, lock and last plan (status_roots.go).
	Root       *rootJSON `json:"root,omitempty"`
	ReadErrors []string  `json:"readErrors,omitempty"`
	// SyncStep is where an Argo CD sync that runs now is.
	SyncStep *syncStepJSON `json:"syncStep,omitempty"`
}

type syncStepJSON struct {
	Phase   string `json:"phase,omitempty"`
	WaitsOn string `json:"waitsOn,omitempty"`
	Wave    *int64 `json:"wave,omitempty"`
	// Waves are the lowest and highest wave of the app's resources.
	Waves []int64 `json:"waves,omitempty"`
}

// syncStepCell is the -o wide SYNC STEP: "Sync w0 of -1..1", "PreSync", or "-".
func syncStepCell(u *model.Unit) string {
	if u.Argo == nil || u.Argo.Step == nil {
		return "-"
	}
	s := u.Argo.Step
	out := orDash(s.Phase)
	if s.HasWave {
		out += fmt.Sprintf(" w%d of %d..%d", s.Wave, s.FirstWave, s.LastWave)
	}
	return out
}

type pauseJSON struct {
	By      string     `json:"by"`
	Reason  string     `json:"reason"`
	At      time.Time  `json:"at"`
	Until   *time.Time `json:"until,omitempty"`
	Expired bool       `json:"expired"`
	Mode    string     `json:"mode"`
	// EndsBy says who will end an expiring pause: the agent, or nobody.
	EndsBy string `json:"endsBy,omitempty"`
}

func printJSON(g *globals, units []*model.Unit, forest *tree.Forest, ends map[model.Key]string, now time.Time) error {
	recs := make([]unitRecord, 0, len(units))
	for _, u := range units {
		recs = append(recs, newRecord(u, forest, ends, now))
	}
	return writeJSON(g.out, recs)
}

// newRecord is a unit's -o json record.
func newRecord(u *model.Unit, forest *tree.Forest, ends map[model.Key]string, now time.Time) unitRecord {
	r := unitRecord{
		Unit: u.Key.Ref(), Context: u.Key.Context, Engine: string(u.Key.Engine), Namespace: u.Key.Namespace, Name: u.Key.Name,
		Kind: u.Kind, Sync: u.Sync.String(), SyncNative: u.SyncNative, Health: u.Health.String(), HealthNative: u.HealthNative,
		Automation: u.Automation.String(), AutomationNative: u.AutomationNative, Run: u.Run.String(),
		Reason: u.Reason(), StuckRule: u.StuckRule, Window: u.Window, Desired: u.Desired, Applied: u.Applied,
		Owner: u.Owner, ReadErrors: u.ReadErrors, Parents: refs(forest.ParentsOf(u.Key)),
	}
	if !u.RunSince.IsZero() {
		t := u.RunSince.UTC()
		r.RunSince = &t
	}
	if u.Argo != nil && u.Argo.Step != nil {
		s := u.Argo.Step
		r.SyncStep = &syncStepJSON{Phase: s.Phase, WaitsOn: s.WaitsOn}
		if s.HasWave {
			r.SyncStep.Wave, r.SyncStep.Waves = &s.Wave, []int64{s.FirstWave, s.LastWave}
		}
	}
	if p := u.Pause; p != nil {
		r.Pause = &pauseJSON{By: p.By, Reason: p.Reason, At: p.At, Expired: p.Expired(now), Mode: p.Mode, EndsBy: ends[u.Key]}
		if !p.Until.IsZero() {
			t := p.Until
			r.Pause.Until = &t
		}
	}
	r.Source = sourceRecord(u.SourceState)
	addFluxRecords(&r, u)
	r.Root = rootRecord(u.Root)
	return r
}

// refs names keys as the command line does, never null in JSON.
func refs(ks []model.Key) []string {
	out := make([]string, 0, len(ks))
	for _, k := range ks {
		out = append(out, k.Ref())
	}
	return out
}

// sourceJSON is how the source a Flux unit reads is doing, when driftdeck
// watches the source objects.
type sourceJSON struct {
	Ref       string `json:"ref"`
	Exists    bool   `json:"exists"`
	Suspended bool   `json:"suspended,omitempty"`
	Ready     string `json:"ready,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
	Revision  string `json:"revision,omitempty"`
}

func sourceRecord(s *model.SourceState) *sourceJSON {
	if s == nil {
		return nil
	}
	return &sourceJSON{Ref: s.Ref.String(), Exists: !s.Missing, Suspended: s.Suspended, Ready: s.Ready,
		Reason: s.Reason, Message: s.Message, Revision: s.Revision}
}

func automationWord(u *model.Unit, now time.Time) string {
	if u.Pause != nil && u.Pause.Expired(now) {
		return "paused (expired)"
	}
	return u.Automation.String()
}

func age(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return model.HumanDuration(now.Sub(t))
}

func shortRev(s string) string {
	if len(s) == 40 && !strings.ContainsAny(s, "/:,") {
		return s[:7]
	}
	return oneLine(s, 20)
}

// firstLine is s up to its first newline, with … when more follows.
func firstLine(s string) string {
	if line, _, more := strings.Cut(s, "\n"); more {
		return line + "…"
	}
	return s
}

func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
