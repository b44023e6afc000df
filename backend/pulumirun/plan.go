package pulumirun

import (
	"fmt"
	"strings"
)

// PlanChangedError is returned by ApplyPlan when the engine refused to go
// beyond the approved plan because the program, its config or the stack's
// state changed since the preview.
type PlanChangedError struct {
	// Resources name each resource that no longer matched the plan, with the
	// engine's reason (values left out: they may be secret).
	Resources []string
	// Applied are the steps that matched the plan and were carried out
	// before the mismatch stopped the update: the engine checks each
	// resource as the program registers it, so resources that do not wait
	// for the mismatched one can be applied, and a replacement can be left
	// half done (State Running: the new resource created, the old one not
	// yet deleted).
	Applied []Step
}

func (e *PlanChangedError) Error() string {
	var b strings.Builder
	b.WriteString("the program or state changed since the preview you approved: ")
	if len(e.Applied) == 0 {
		b.WriteString("nothing was applied")
	} else {
		fmt.Fprintf(&b, "%d approved change(s) were applied before the difference was found (", len(e.Applied))
		for i, s := range e.Applied {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s", s.Op, s.Name)
			if s.State != Done {
				b.WriteString(" (partly)")
			}
		}
		b.WriteString("), nothing else")
	}
	b.WriteString("; preview again")
	if len(e.Resources) > 0 {
		b.WriteString(" (" + strings.Join(e.Resources, "; ") + ")")
	}
	return b.String()
}
