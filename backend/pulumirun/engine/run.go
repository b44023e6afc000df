package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

// Preview runs `pulumi preview` on the target in this process, as
// pulumirun.Preview does through the helper.
func Preview(ctx context.Context, t Target, opts pulumirun.PreviewOptions) (pulumirun.Result, error) {
	s, err := open(ctx, t)
	if err != nil {
		return pulumirun.Result{}, err
	}
	defer s.close()
	if opts.PlanPath != "" {
		if err := os.MkdirAll(filepath.Dir(opts.PlanPath), 0o700); err != nil {
			return pulumirun.Result{}, err
		}
	}
	conv := newConverter(true, opts.OnEvent)
	res, err := stream(ctx, conv, func(ch chan events.EngineEvent) error {
		o := []optpreview.Option{optpreview.EventStreams(ch)}
		if opts.PlanPath != "" {
			o = append(o, optpreview.Plan(opts.PlanPath))
		}
		if s.configFile != "" {
			o = append(o, optpreview.ConfigFile(s.configFile))
		}
		_, err := s.stack.Preview(ctx, o...)
		return err
	})
	return res, runErr(ctx, err)
}

// ApplyPlan runs `pulumi up` bound to a saved plan in this process, as
// pulumirun.ApplyPlan does through the helper.
func ApplyPlan(ctx context.Context, t Target, planPath string, onEvent func(pulumirun.Event)) (pulumirun.Result, error) {
	if _, err := os.Stat(planPath); err != nil {
		return pulumirun.Result{}, err
	}
	s, err := open(ctx, t)
	if err != nil {
		return pulumirun.Result{}, err
	}
	defer s.close()
	conv := newConverter(false, onEvent)
	res, err := stream(ctx, conv, func(ch chan events.EngineEvent) error {
		o := []optup.Option{optup.EventStreams(ch), optup.Plan(planPath)}
		if s.configFile != "" {
			o = append(o, optup.ConfigFile(s.configFile))
		}
		_, err := s.stack.Up(ctx, o...)
		return err
	})
	if err != nil && len(conv.violation) > 0 {
		return res, &pulumirun.PlanChangedError{Resources: conv.violation, Applied: conv.applied()}
	}
	return res, runErr(ctx, err)
}

// stream runs call with an event channel and converts what arrives until
// call returns. The Automation API does not close the channel when the CLI
// fails before it streams anything, so the pump never waits for a close:
// once call has returned, every event already sent has been received (the
// channel is unbuffered and the API finishes its event server first), and
// what is left is drained without blocking.
func stream(ctx context.Context, conv *converter, call func(chan events.EngineEvent) error) (pulumirun.Result, error) {
	ch := make(chan events.EngineEvent)
	returned := make(chan struct{})
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		for {
			select {
			case e, ok := <-ch:
				if !ok {
					return
				}
				deliver(conv, e)
			case <-returned:
				for {
					select {
					case e, ok := <-ch:
						if !ok {
							return
						}
						deliver(conv, e)
					default:
						return
					}
				}
			}
		}
	}()
	start := time.Now()
	err := call(ch)
	elapsed := time.Since(start)
	close(returned)
	<-pumped
	res := pulumirun.Result{Steps: conv.stepsSoFar(), Elapsed: elapsed}
	if conv.summary != nil {
		res.Summary = *conv.summary
	}
	return res, err
}

func deliver(conv *converter, e events.EngineEvent) {
	if e.Error != nil {
		conv.emit(pulumirun.Event{Diag: &pulumirun.Diagnostic{Severity: "error", Message: "event stream: " + e.Error.Error()}})
		return
	}
	conv.handle(e.EngineEvent)
}

// runErr prefers the context's error when the run was cancelled.
func runErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return errors.Join(ctxErr, cliError(err))
	}
	return cliError(err)
}
