package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/driftdeck/driftdeck/backend/internal/helperbin"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const usage = `usage: driftdeck-pulumi run

driftdeck runs this helper to preview and apply Pulumi stacks: it reads one
request on standard input, writes the run's events on standard output, and
cancels the run when its input is closed. It is not meant to be run by hand.
`

// Main is the helper's main: cmd/driftdeck-pulumi runs it with no inline
// programs, helpers built for tests with theirs. It returns the exit code.
func Main(args []string, programs map[string]pulumi.RunFunc) int {
	if len(args) != 2 || args[1] != "run" {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	// driftdeck cancels by closing the input; an interrupt meant for
	// driftdeck's terminal must not cut the run short on its own, nor a
	// write to a driftdeck that is gone (the closed input cancels then).
	signal.Ignore(os.Interrupt, syscall.SIGPIPE)
	// Replies own standard output: anything else printing there (an inline
	// program) goes to standard error.
	replies := os.Stdout
	os.Stdout = os.Stderr
	if err := Serve(os.Stdin, replies, programs); err != nil {
		fmt.Fprintf(os.Stderr, "driftdeck-pulumi: %v\n", err)
		return 1
	}
	return 0
}

// Serve answers one pulumirun.Request read from in with replies on out. The
// run is cancelled when in ends.
func Serve(in io.Reader, out io.Writer, programs map[string]pulumi.RunFunc) error {
	var req pulumirun.Request
	ctx, cancel, err := helperbin.ReadRequest(in, &req)
	if err != nil {
		return err
	}
	defer cancel()
	enc := json.NewEncoder(out)
	var encErr error
	emit := func(e pulumirun.Event) {
		if encErr == nil {
			encErr = enc.Encode(pulumirun.Reply{Event: &e})
		}
	}
	res, err := serve(ctx, req, programs, emit)
	if encErr != nil {
		return encErr
	}
	return enc.Encode(pulumirun.Reply{Done: outcome(res, err)})
}

func serve(ctx context.Context, req pulumirun.Request, programs map[string]pulumi.RunFunc, emit func(pulumirun.Event)) (pulumirun.Result, error) {
	if req.Protocol != pulumirun.ProtocolVersion {
		return pulumirun.Result{}, fmt.Errorf("driftdeck-pulumi speaks protocol %d and this driftdeck %d: install the helper of the same release",
			pulumirun.ProtocolVersion, req.Protocol)
	}
	t := Target{Target: req.Target}
	if t.Inline != "" {
		t.Program = programs[t.Inline]
	}
	switch req.Op {
	case pulumirun.OpPreview:
		return Preview(ctx, t, pulumirun.PreviewOptions{PlanPath: req.PlanPath, OnEvent: emit})
	case pulumirun.OpApply:
		return ApplyPlan(ctx, t, req.PlanPath, emit)
	case pulumirun.OpDriftCheck:
		return DriftCheck(ctx, t, emit)
	}
	return pulumirun.Result{}, fmt.Errorf("unknown operation %q", req.Op)
}

// outcome says how the run ended, keeping apart what driftdeck must tell
// apart: a plan that no longer matched, and a cancellation.
func outcome(res pulumirun.Result, err error) *pulumirun.Outcome {
	o := &pulumirun.Outcome{Result: res}
	var changed *pulumirun.PlanChangedError
	switch {
	case err == nil:
	case errors.As(err, &changed):
		o.PlanChanged = changed
	case errors.Is(err, context.Canceled):
		o.Canceled = true
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			var rest []error
			for _, e := range joined.Unwrap() {
				if !errors.Is(e, context.Canceled) {
					rest = append(rest, e)
				}
			}
			if len(rest) > 0 {
				o.Error = errors.Join(rest...).Error()
			}
		}
	default:
		o.Error = err.Error()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == -1 { // ended by a signal
			o.Error = fmt.Sprintf("the pulumi CLI was killed (%s) before it finished: the stack may be left locked, "+
				"with operations pending (unlock shows and clears them): %s", exit, err)
		}
	}
	return o
}
