package pulumirun

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Placeholders shown instead of values that must not or cannot be shown.
const (
	SecretPlaceholder  = "[secret]"
	UnknownPlaceholder = "[unknown]"
)

// Op is a step's operation in the engine's words (create, update, delete,
// replace, same, read, refresh, import, discard, ...).
type Op string

// The operations a view needs to tell apart. Any other engine op is passed
// through unchanged.
const (
	OpSame    Op = "same"
	OpCreate  Op = "create"
	OpUpdate  Op = "update"
	OpDelete  Op = "delete"
	OpReplace Op = "replace"
	OpRead    Op = "read"
	OpRefresh Op = "refresh"

	OpCreateReplacement Op = "create-replacement"
	OpDeleteReplaced    Op = "delete-replaced"
	OpDiscardReplaced   Op = "discard-replaced"
)

// StepState says how far a step got.
type StepState string

const (
	// Planned: seen in a preview; nothing was done.
	Planned StepState = "planned"
	// Running: an apply started the step.
	Running StepState = "running"
	// Done: an apply finished the step.
	Done StepState = "done"
	// Failed: the step's resource operation failed.
	Failed StepState = "failed"
)

// Step is one resource line of a preview or apply. Steps are keyed by URN: a
// later Step with the same URN (and Seq) supersedes the earlier one, because
// a replacement arrives as several engine steps that are folded into one
// "replace" line, and an apply reports a step's start and end.
type Step struct {
	Seq  int // order of first appearance, stable across updates of the line
	URN  string
	Type string
	Name string
	Op   Op
	// Parts are the engine steps folded into a replacement, in arrival order
	// (create-replacement, replace, delete-replaced; delete-replaced comes
	// first for delete-before-replace).
	Parts []Op
	// ReplaceKeys are the properties whose change forces the replacement.
	ReplaceKeys []string
	Diffs       []PropertyDiff
	State       StepState
}

// DiffKind says what happened to one property.
type DiffKind string

const (
	DiffAdd    DiffKind = "add"
	DiffDelete DiffKind = "delete"
	DiffUpdate DiffKind = "update"
)

// PropertyDiff is one changed property with its old and new values rendered
// for display; secrets read "[secret]" and values not known until apply read
// "[unknown]". Old is empty for an add, New for a delete.
type PropertyDiff struct {
	Path     string
	Kind     DiffKind
	Old, New string
	// Replace: this change forces the resource to be replaced.
	Replace bool
}

// Diagnostic is a message from the engine or the program.
type Diagnostic struct {
	Severity string // error, warning, info, info#err
	URN      string // the resource it is about, if any
	Message  string // colour codes removed
}

// Summary closes a preview or apply.
type Summary struct {
	Changes  map[Op]int    // resources per operation
	Duration time.Duration // as measured by the engine (whole seconds)
	Result   string        // succeeded, failed or canceled ("" from older CLIs)
}

// Event is one thing delivered while a preview or apply runs: exactly one of
// its fields is set.
type Event struct {
	Step    *Step
	Diag    *Diagnostic
	Summary *Summary
}

// Result is what a finished preview or apply returns.
type Result struct {
	Steps   []Step // final state of every line, in Seq order
	Summary Summary
	Elapsed time.Duration // wall clock of the CLI call
}

// Sign is the one-column mark of an operation, as pulumi prints it.
func (o Op) Sign() string {
	switch o {
	case OpCreate:
		return "+ "
	case OpDelete:
		return "- "
	case OpUpdate:
		return "~ "
	case OpReplace:
		return "+-"
	}
	return "  "
}

// String renders a property change as "path: old => new".
func (d PropertyDiff) String() string {
	s := d.Path + ": " + orNone(d.Old) + " => " + orNone(d.New)
	if d.Replace {
		s += "   (forces replacement)"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Text counts the changes in words: "1 to create, 2 to update", or "no changes".
func (s Summary) Text() string {
	var parts []string
	for op, n := range s.Changes {
		if op != OpSame && n > 0 {
			parts = append(parts, fmt.Sprintf("%d to %s", n, op))
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Drifted lists the resources a drift check found changed or gone out of
// band: the steps whose read did not come back the same.
func (r Result) Drifted() []Step {
	var out []Step
	for _, s := range r.Steps {
		if s.Op == OpUpdate || s.Op == OpDelete {
			out = append(out, s)
		}
	}
	return out
}
