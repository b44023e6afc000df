package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag/colors"
)

// converter turns engine events into Events, folding the parts of each
// replacement into one "replace" step. It is used from one goroutine.
type converter struct {
	preview bool
	// refresh: the run is a refresh preview, whose steps say only at their
	// outputs event whether the provider found the resource changed.
	refresh bool
	emit    func(pulumirun.Event)
	steps   map[string]*pulumirun.Step
	order   []*pulumirun.Step
	// done records, per replaced URN, which of its parts an apply finished.
	done map[string]map[pulumirun.Op]bool

	summary   *pulumirun.Summary
	violation []string // "violates plan" errors, one per resource
}

func newConverter(preview bool, emit func(pulumirun.Event)) *converter {
	if emit == nil {
		emit = func(pulumirun.Event) {}
	}
	return &converter{preview: preview, emit: emit, steps: map[string]*pulumirun.Step{}, done: map[string]map[pulumirun.Op]bool{}}
}

func isReplacePart(op pulumirun.Op) bool {
	switch op {
	case pulumirun.OpCreateReplacement, pulumirun.OpReplace, pulumirun.OpDeleteReplaced, pulumirun.OpDiscardReplaced,
		"read-replacement", "import-replacement":
		return true
	}
	return false
}

// handle converts one engine event and emits what changed.
func (c *converter) handle(e apitype.EngineEvent) {
	switch {
	case e.ResourcePreEvent != nil && c.refresh:
		c.refreshing(&e.ResourcePreEvent.Metadata)
	case e.ResourcePreEvent != nil:
		c.pre(&e.ResourcePreEvent.Metadata)
	case e.ResOutputsEvent != nil && c.refresh:
		c.refreshed(&e.ResOutputsEvent.Metadata)
	case e.ResOutputsEvent != nil:
		if !c.preview && !e.ResOutputsEvent.Planning {
			c.finished(&e.ResOutputsEvent.Metadata)
		}
	case e.ResOpFailedEvent != nil:
		if s := c.steps[e.ResOpFailedEvent.Metadata.URN]; s != nil {
			s.State = pulumirun.Failed
			c.emitStep(s)
		}
	case e.DiagnosticEvent != nil:
		c.diagnostic(e.DiagnosticEvent)
	case e.ErrorEvent != nil:
		c.emit(pulumirun.Event{Diag: &pulumirun.Diagnostic{Severity: "error", Message: e.ErrorEvent.Error}})
	case e.SummaryEvent != nil:
		c.summary = convertSummary(e.SummaryEvent)
		s := *c.summary
		c.emit(pulumirun.Event{Summary: &s})
	}
}

func (c *converter) pre(md *apitype.StepEventMetadata) {
	op := pulumirun.Op(md.Op)
	s := c.steps[md.URN]
	if s == nil {
		s = &pulumirun.Step{Seq: len(c.order), URN: md.URN, Type: md.Type, Name: resourceName(md.URN), Op: op}
		c.steps[md.URN] = s
		c.order = append(c.order, s)
	}
	if isReplacePart(op) {
		s.Op = pulumirun.OpReplace
		s.Parts = append(s.Parts, op)
		for _, k := range md.Keys {
			if !slices.Contains(s.ReplaceKeys, k) {
				s.ReplaceKeys = append(s.ReplaceKeys, k)
			}
		}
		// The delete part knows only the old state; the others carry the diff.
		if md.Old != nil && md.New != nil {
			s.Diffs = propertyDiffs(md)
		}
	} else {
		s.Op = op
		s.ReplaceKeys = slices.Clone(md.Keys)
		s.Diffs = propertyDiffs(md)
	}
	s.State = pulumirun.Planned
	if !c.preview {
		s.State = pulumirun.Running
	}
	c.emitStep(s)
}

func (c *converter) finished(md *apitype.StepEventMetadata) {
	s := c.steps[md.URN]
	if s == nil || s.State == pulumirun.Failed {
		return
	}
	if s.Op == pulumirun.OpReplace {
		d := c.done[md.URN]
		if d == nil {
			d = map[pulumirun.Op]bool{}
			c.done[md.URN] = d
		}
		d[pulumirun.Op(md.Op)] = true
		// The line is done when the new resource exists and the old one is gone.
		if !d[pulumirun.OpCreateReplacement] || !(d[pulumirun.OpDeleteReplaced] || d[pulumirun.OpDiscardReplaced]) {
			return
		}
	}
	s.State = pulumirun.Done
	c.emitStep(s)
}

func (c *converter) diagnostic(d *apitype.DiagnosticEvent) {
	if d.Ephemeral || d.Severity == "debug" {
		return
	}
	msg := strings.TrimSpace(colors.Never.Colorize(d.Message))
	if d.Severity == "error" && strings.Contains(msg, "violates plan") {
		c.violation = append(c.violation, planViolation(d.URN, msg))
	}
	c.emit(pulumirun.Event{Diag: &pulumirun.Diagnostic{Severity: d.Severity, URN: d.URN, Message: msg}})
}

func (c *converter) emitStep(s *pulumirun.Step) {
	cp := *s
	cp.Parts = slices.Clone(s.Parts)
	cp.ReplaceKeys = slices.Clone(s.ReplaceKeys)
	c.emit(pulumirun.Event{Step: &cp})
}

// stepsSoFar returns a copy of every step in order.
func (c *converter) stepsSoFar() []pulumirun.Step {
	out := make([]pulumirun.Step, len(c.order))
	for i, s := range c.order {
		out[i] = *s
	}
	return out
}

// applied lists the steps an apply carried out, fully (Done) or, for a
// replacement, in part (Running: one of its create or delete parts done).
func (c *converter) applied() []pulumirun.Step {
	var out []pulumirun.Step
	for _, s := range c.order {
		if s.Op == pulumirun.OpSame || s.Op == pulumirun.OpRead {
			continue
		}
		if s.State == pulumirun.Done || len(c.done[s.URN]) > 0 {
			out = append(out, *s)
		}
	}
	return out
}

func convertSummary(e *apitype.SummaryEvent) *pulumirun.Summary {
	s := &pulumirun.Summary{
		Changes:  make(map[pulumirun.Op]int, len(e.ResourceChanges)),
		Duration: time.Duration(e.DurationSeconds) * time.Second,
		Result:   string(e.Result),
	}
	for op, n := range e.ResourceChanges {
		s.Changes[pulumirun.Op(op)] = n
	}
	return s
}
