package pulumirun

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/driftdeck/driftdeck/backend/internal/helperbin"
)

// HelperName is the helper's executable name.
const HelperName = "driftdeck-pulumi"

// HelperEnv names the variable that points at the helper explicitly.
const HelperEnv = "DRIFTDECK_PULUMI_HELPER"

var runHelper = helperbin.Helper{Name: HelperName, Env: HelperEnv, Holds: "the Pulumi Automation API"}

// WaitRuns waits up to d for the runs in flight to end, cancelled ones
// included: an interrupted CLI releases the stack's lock before it exits,
// which a process quitting first could cut short. False when a run still
// goes on after d.
func WaitRuns(d time.Duration) bool { return runHelper.Wait(d) }

// PreviewOptions tune a preview.
type PreviewOptions struct {
	// PlanPath is where the plan is saved for ApplyPlan; "" saves none.
	PlanPath string
	// OnEvent receives each step, diagnostic and the summary as they arrive,
	// from one goroutine, before Preview returns. The CLI waits while it
	// runs: it must not block for long.
	OnEvent func(Event)
}

// Preview runs `pulumi preview` on the target and streams its steps.
// Cancelling ctx interrupts the CLI the way Ctrl-C does: it stops the
// program, releases the stack's lock and exits; Preview then returns the
// steps seen so far with ctx's error.
func Preview(ctx context.Context, t Target, opts PreviewOptions) (Result, error) {
	if opts.PlanPath != "" {
		if err := os.MkdirAll(filepath.Dir(opts.PlanPath), 0o700); err != nil {
			return Result{}, err
		}
	}
	return run(ctx, Request{Op: OpPreview, Target: t, PlanPath: opts.PlanPath}, opts.OnEvent)
}

// ApplyPlan runs `pulumi up` constrained by the plan a preview saved at
// planPath: the engine refuses any operation the plan does not contain.
// When the program, its config or the state changed since that preview the
// result is a *PlanChangedError that says what, if anything, was applied.
func ApplyPlan(ctx context.Context, t Target, planPath string, onEvent func(Event)) (Result, error) {
	if _, err := os.Stat(planPath); err != nil {
		return Result{}, err
	}
	return run(ctx, Request{Op: OpApply, Target: t, PlanPath: planPath}, onEvent)
}

// DriftCheck runs `pulumi refresh --preview-only` on the target: each
// resource is read from its provider and compared with the state, and the
// steps say which changed out of band (update, with the outputs that
// differ) or are gone (delete). Nothing is written, not even the state.
func DriftCheck(ctx context.Context, t Target, onEvent func(Event)) (Result, error) {
	return run(ctx, Request{Op: OpDriftCheck, Target: t}, onEvent)
}

// run sends req to a new helper process and delivers its events until it
// is done.
func run(ctx context.Context, req Request, onEvent func(Event)) (Result, error) {
	if err := req.Target.Validate(); err != nil {
		return Result{}, err
	}
	path, err := runHelper.Find("a Pulumi " + req.Op)
	if err != nil {
		return Result{}, err
	}
	req.Protocol = ProtocolVersion
	var out *Outcome
	err = runHelper.Call(ctx, path, []string{"run"}, req, func(dec *json.Decoder) (bool, error) {
		var err error
		out, err = readReply(dec, onEvent)
		return out != nil, err
	})
	if err != nil {
		return Result{}, err
	}
	return out.Result, out.err(ctx)
}

// readReply reads one reply from the helper: an event, delivered, or the
// outcome that ends the run.
func readReply(dec *json.Decoder, onEvent func(Event)) (*Outcome, error) {
	var rep Reply
	if err := dec.Decode(&rep); err != nil {
		return nil, err
	}
	switch {
	case rep.Done != nil:
		return rep.Done, nil
	case rep.Event != nil && onEvent != nil:
		onEvent(*rep.Event)
	}
	return nil, nil
}

// err rebuilds the run's error on this side of the pipe.
func (o *Outcome) err(ctx context.Context) error {
	var err error
	switch {
	case o.PlanChanged != nil:
		return o.PlanChanged
	case o.Error != "":
		err = errors.New(o.Error)
	}
	if o.Canceled {
		cause := ctx.Err()
		if cause == nil {
			cause = context.Canceled
		}
		return errors.Join(cause, err)
	}
	return err
}
