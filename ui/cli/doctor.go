package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/doctor"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// errNeedsHuman makes doctor exit 1 without an error line, as diff does
// when it found differences: the report said it.
var errNeedsHuman = &exitError{code: exitFailed, err: fmt.Errorf("units need a human: %w", errDifferences)}

func newDoctorCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "List every unit that needs a human, with the cause and the command that fixes it",
		Long: `Read the live model once and list every unit that is stuck, failed, awaiting
approval, paused past its expiry or unreadable: the cause, the rule that says
so, and the one driftdeck command that fixes it (or what to do when no command
can, e.g. a source that renders an invalid manifest), quoted to paste into a
shell. Exits 0 when nothing needs a human, 1 otherwise.`,
		Example: `  driftdeck doctor -A
  driftdeck doctor -n team-payments -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd.Context(), g) },
	}
	cmd.Flags().StringVarP(&g.output, "output", "o", "table", "output format: table or json")
	return cmd
}

func runDoctor(ctx context.Context, g *globals) error {
	if g.output != "table" && g.output != "json" {
		return usageError(fmt.Errorf("--output %q: want table or json", g.output))
	}
	ctx, cancel := context.WithTimeout(ctx, g.requestTimeout(60*time.Second))
	defer cancel()
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return usageError(err)
	}
	f, err := connect(ctx, g, cfg.StuckThresholds(), false)
	if err != nil {
		return err
	}
	if err := awaitModel(ctx, g, f); err != nil {
		return err
	}
	f.Store.Tick()
	units := f.Store.Snapshot()
	findings := doctor.Examine(units, time.Now(), g.origin())
	doctor.CheckAccess(ctx, findings, f.Cluster)
	secrets, unchecked := doctor.CheckStackSecrets(ctx, units, f.Cluster)
	findings = append(findings, secrets...)
	if len(unchecked) > 0 {
		fmt.Fprintf(g.errOut, "doctor: the Secrets some Stacks name were not checked: %s\n", safetext.Visible(strings.Join(unchecked, "; ")))
	}
	killed, unchecked := doctor.CheckWorkspacePods(ctx, units, f.Cluster, time.Now(), g.origin())
	findings = append(findings, killed...)
	if len(unchecked) > 0 {
		fmt.Fprintf(g.errOut, "doctor: some Stacks' workspace pods were not checked: %s\n", safetext.Visible(strings.Join(unchecked, "; ")))
	}
	operator, unchecked := doctor.CheckPulumiOperator(ctx, units, f.Cluster)
	findings = append(operator, findings...) // nothing of a context reconciles: said first
	if len(unchecked) > 0 {
		fmt.Fprintf(g.errOut, "doctor: %s\n", safetext.Visible(strings.Join(unchecked, "; ")))
	}
	ref := func(k model.Key) string {
		if k.Name == "" { // a finding about a context, not a unit
			return "context " + k.Context + " (" + string(k.Engine) + ")"
		}
		if len(f.Contexts()) > 1 {
			return k.String()
		}
		return k.Ref()
	}
	if g.output == "json" {
		err = printDoctorJSON(g, findings, ref)
	} else {
		printDoctor(g, findings, ref)
	}
	if err != nil {
		return err
	}
	if len(findings) > 0 {
		return errNeedsHuman
	}
	return nil
}

func printDoctor(g *globals, fs []doctor.Finding, ref func(model.Key) string) {
	if len(fs) == 0 {
		fmt.Fprintln(g.out, "nothing needs a human")
		return
	}
	for _, f := range fs {
		fmt.Fprintf(g.out, "%s  %s\n", safetext.Visible(ref(f.Key)), f.State)
		fmt.Fprintf(g.out, "  cause: %s\n", safetext.Visible(f.Cause))
		if f.Rule != "" {
			fmt.Fprintf(g.out, "  rule:  %s\n", safetext.Visible(f.Rule))
		}
		if c := f.Command(g.origin()); c != "" {
			fmt.Fprintf(g.out, "  fix:   %s\n", safetext.Visible(c))
		} else {
			fmt.Fprintf(g.out, "  fix:   (no driftdeck command) %s\n", safetext.Visible(f.Hint))
		}
		if f.Forbidden != "" {
			fmt.Fprintf(g.out, "  note:  %s\n", safetext.Visible(f.Forbidden))
		}
	}
	units, contexts := map[model.Key]bool{}, map[model.Key]bool{}
	for _, f := range fs {
		if f.Key.Name == "" {
			contexts[f.Key] = true
		} else {
			units[f.Key] = true
		}
	}
	if len(contexts) > 0 {
		fmt.Fprintf(g.out, "%d unit(s) and %d context(s) need a human\n", len(units), len(contexts))
		return
	}
	fmt.Fprintf(g.out, "%d unit(s) need a human\n", len(units))
}

type findingJSON struct {
	Unit      string `json:"unit"`
	Context   string `json:"context"`
	State     string `json:"state"`
	Cause     string `json:"cause"`
	Rule      string `json:"rule,omitempty"`
	Command   string `json:"command,omitempty"`
	Hint      string `json:"hint,omitempty"`
	Forbidden string `json:"forbidden,omitempty"`
}

func printDoctorJSON(g *globals, fs []doctor.Finding, ref func(model.Key) string) error {
	out := make([]findingJSON, 0, len(fs))
	for _, f := range fs {
		out = append(out, findingJSON{Unit: ref(f.Key), Context: f.Key.Context, State: f.State, Cause: f.Cause, Rule: f.Rule,
			Command: f.Command(g.origin()), Hint: f.Hint, Forbidden: f.Forbidden})
	}
	return writeJSON(g.out, out)
}
