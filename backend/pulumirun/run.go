package pulumirun

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/driftdeck/driftdeck/backend/internal/helperbin"
)

// HelperName is the helper's executable name.
const HelperName = "driftdeck-pulumi"

// HelperEnv names the variable that points at the helper explicitly.
const HelperEnv = "DRIFTDECK_PULUMI_HELPER"

var runHelper = helperbin.Helper{Name: HelperName, Env: HelperEnv, Holds: "the Pulumi Automation API"}

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
	cmd := exec.Command(path, "run")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Result{}, err
	}
	// A pipe of our own: StdoutPipe's end is closed by Wait, which could
	// lose the last lines of a helper that exits at once.
	stdout, w, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	defer stdout.Close()
	cmd.Stdout = w
	stderr := helperbin.NewTail(4 << 10)
	cmd.Stderr = stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		return Result{}, fmt.Errorf("starting %s: %w", path, err)
	}
	exited := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = stdin.Close() // the helper cancels the run
		case <-exited:
		}
	}()
	if err := json.NewEncoder(stdin).Encode(req); err != nil {
		_ = cmd.Process.Kill()
	}
	out, readErr := receive(bufio.NewReader(stdout), onEvent)
	_ = stdin.Close()
	_ = cmd.Wait()
	close(exited)
	if readErr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = readErr.Error()
		}
		err := fmt.Errorf("%s stopped: %s", HelperName, msg)
		if ctx.Err() != nil {
			err = errors.Join(ctx.Err(), err)
		}
		return Result{}, err
	}
	return out.Result, out.err(ctx)
}

// receive reads replies until Done.
func receive(r io.Reader, onEvent func(Event)) (*Outcome, error) {
	dec := json.NewDecoder(r)
	for {
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
	}
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
