package engine

import (
	"context"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// DriftCheck runs `pulumi refresh --preview-only` on the target in this
// process, as pulumirun.DriftCheck does through the helper: every resource
// is read from its provider and compared with the state; nothing is
// written.
func DriftCheck(ctx context.Context, t Target, onEvent func(pulumirun.Event)) (pulumirun.Result, error) {
	s, err := open(ctx, t)
	if err != nil {
		return pulumirun.Result{}, err
	}
	defer s.close()
	conv := newConverter(true, onEvent)
	conv.refresh = true
	res, err := stream(ctx, conv, func(ch chan events.EngineEvent) error {
		o := []optrefresh.Option{optrefresh.EventStreams(ch)}
		if s.configFile != "" {
			o = append(o, optrefresh.ConfigFile(s.configFile))
		}
		_, err := s.stack.PreviewRefresh(ctx, o...)
		return err
	})
	return res, runErr(ctx, err)
}

// refreshing records a resource the refresh is about to read; it is shown
// once the read says whether it changed.
func (c *converter) refreshing(md *apitype.StepEventMetadata) {
	if c.steps[md.URN] != nil {
		return
	}
	s := &pulumirun.Step{Seq: len(c.order), URN: md.URN, Type: md.Type, Name: resourceName(md.URN), Op: pulumirun.OpRefresh, State: pulumirun.Planned}
	c.steps[md.URN] = s
	c.order = append(c.order, s)
}

// refreshed takes the read's verdict: same, update (the provider's outputs
// differ from the state's, listed property by property) or delete (the
// resource is gone).
func (c *converter) refreshed(md *apitype.StepEventMetadata) {
	c.refreshing(md)
	s := c.steps[md.URN]
	s.Op = pulumirun.Op(md.Op)
	s.Diffs = nil
	if s.Op == pulumirun.OpUpdate && md.Old != nil && md.New != nil {
		s.Diffs = outputDiffs(md)
	}
	c.emitStep(s)
}

// outputDiffs lists the outputs a refresh found changed, member by member
// (outputs.endpoint: one => two), hidden paths and secrets kept hidden.
func outputDiffs(md *apitype.StepEventMetadata) []pulumirun.PropertyDiff {
	whole := pulumirun.PropertyDiff{Path: "outputs", Kind: pulumirun.DiffUpdate, Old: render(md.Old.Outputs), New: render(md.New.Outputs)}
	if whole.Old == whole.New {
		return nil
	}
	out := changedParts(whole, resource.PropertyPath{}, md.Old.Outputs, md.New.Outputs, hiddenPaths(md))
	sortDiffs(out)
	return out
}
