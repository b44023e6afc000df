package cli

import (
	"context"
	"errors"
	"net"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Exit codes, the same for every command (exitCodesHelp says them to users).
const (
	exitFailed      = 1 // failed; differences found (diff, drift); written but not in effect
	exitUsage       = 2 // arguments, flags, kubeconfig, context
	exitUnreachable = 3
	exitForbidden   = 4 // RBAC or --read-only
	exitNotFound    = 5
	exitRefused     = 6 // the unit's state, a precondition, a plan changed since confirmed
	exitDiffFailed  = 7 // diff: the differences could not be computed (1 would read as found)
)

const exitCodesHelp = `Exit codes (the same for every command):
  0  done
  1  failed; differences found (diff, drift); written but not in effect (reverted,
     pruned)
  2  usage: bad arguments or flags, missing or broken kubeconfig, unknown context
  3  cluster unreachable
  4  forbidden: RBAC, or --read-only
  5  not found
  6  refused: not possible in the unit's state, precondition failed, plan changed
     since it was confirmed, stale plan
  7  diff or drift failed: the differences could not be computed (a source that cannot
     be fetched or built, a dry-run the cluster rejects)`

// exitError marks an error the command line itself classified (usage, an
// unreachable cluster, a write not in effect).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// exitCode maps an error to its exit code. What the backend says (typed
// refusals, API status errors) wins over how the command line wrapped it.
func exitCode(err error) int {
	var (
		refusal *actions.Refusal
		changed *actions.PlanChanged
		ee      *exitError
		expired *argodiff.LoginExpired
	)
	switch {
	case err == nil:
		return 0
	case writeguard.IsUnknown(err):
		// The write's answer was lost and it could not be read back.
		return exitUnreachable
	case errors.Is(err, actions.ErrReadOnly),
		errors.As(err, &refusal) && refusal.Permission,
		apierrors.IsForbidden(err), apierrors.IsUnauthorized(err),
		argoapi.PermissionDenied(err), argoapi.Unauthorized(err), errors.As(err, &expired):
		return exitForbidden
	case refusal != nil && refusal.NotFound, apierrors.IsNotFound(err):
		return exitNotFound
	case refusal != nil, errors.As(err, &changed), stalePlan(err):
		return exitRefused
	case errors.As(err, &ee):
		return ee.code
	case unreachable(err):
		return exitUnreachable
	}
	return exitFailed
}

// unreachable tells a cluster that did not answer (refused, unresolvable,
// timed out) from one that answered no.
func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &dns) || errors.Is(err, context.DeadlineExceeded) ||
		apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err)
}

// markUsage makes cobra's own errors (unknown flags and commands, wrong
// argument counts) usage errors, and puts the exit codes in every help.
func markUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.SetHelpTemplate(root.HelpTemplate() + "\n" + exitCodesHelp + "\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return usageError(err)
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
