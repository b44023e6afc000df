package stackops

import (
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
)

// The embedded demo control plane ships a program for one of its Stacks
// (demo.ProgramTarget): these two hooks let Locate and target treat that
// Stack like one the user mapped to a local program, so that it previews
// for real and its approval applies the reviewed plan. Stacks of real
// clusters are never mapped this way.

// mapDemoProgram marks loc as run from this machine when c is a demo
// cluster and loc's Stack has a program there. Locate calls it after the
// user's own mappings, which it does not override.
func mapDemoProgram(c *kube.Cluster, loc *Location) {
	if loc.Local != nil {
		return
	}
	if t, ok := demo.ProgramTarget(c, loc.Key); ok {
		loc.Local = &config.StackProgram{Unit: loc.Key.Ref(), Dir: t.WorkDir, Stack: t.Stack, Backend: t.BackendURL}
		loc.Stack, loc.Backend = t.Stack, t.BackendURL
	}
}

// demoTarget is the run of loc's Stack when the demo ships its program,
// with cli as the pulumi binary; ok is false for every other Stack.
func (o *Ops) demoTarget(loc *Location, cli string) (t pulumirun.Target, ok bool) {
	c, found := o.Cluster(loc.Key.Context)
	if !found {
		return t, false
	}
	if t, ok = demo.ProgramTarget(c, loc.Key); ok {
		t.CLI = cli
	}
	return t, ok
}
