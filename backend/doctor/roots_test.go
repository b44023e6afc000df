package doctor

import (
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
)

// A root module's findings: a lock held past the threshold on a backend
// that keeps it beyond its holder is broken by its id; a local one is its
// live process's; a plan that waits is applied by its id, after a look;
// the commands find the module again with --root.
func TestRootModuleFindingsNameTheLockOrPlanById(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	lock := &model.RootLock{ID: "f2ab685b-f84d", Operation: "OperationTypeApply", Who: "ci@runner-7", Created: now.Add(-3 * time.Hour)}
	unit := func(name, backend string, lock *model.RootLock, plan *model.RootPlan, readErr string) *model.Unit {
		f := &model.RootFacts{Dir: "/src/infra/" + name, Given: rootmod.GivenFlag, Backend: backend, Serial: 4, Lock: lock, Plan: plan, ReadError: readErr}
		if plan != nil {
			plan.Serial = 4
		}
		// What the store holds: the unit as rootmod makes it, then time.
		u := rootmod.Unit(rootmod.Root{Name: name, Dir: f.Dir, Workspace: "default"}, f)
		model.Derive(u, now, model.DefaultThresholds)
		return u
	}
	var o cmdline.Origin
	for _, c := range []struct {
		u                *model.Unit
		state, cmd, hint string
	}{
		{unit("network", "kubernetes", lock, nil, ""), "stuck", "driftdeck force-unlock root/default/network --reason 'doctor: state locked by ci@runner-7 (OperationTypeApply)' --lock f2ab685b-f84d --root /src/infra/network", "a live apply would lose its lock"},
		{unit("dns", "local", lock, nil, ""), "stuck", "", "end it if it hangs"},
		{unit("vpc", "s3", nil, &model.RootPlan{ID: "cdf60e93", Changes: true, Summary: "Plan: 1 to add, 0 to change, 0 to destroy."}, ""), "awaiting approval",
			"driftdeck approve root/default/vpc --reason 'doctor: plan cdf60e93 waits to be applied: Plan: 1 to add, 0 to change, 0 to destroy.' --revision cdf60e93 --root /src/infra/vpc", "`driftdeck --root /src/infra/vpc diff root/default/vpc`"},
		{unit("edge", "s3", nil, nil, "tofu state pull: AccessDenied"), "failed", "", "state pull"},
	} {
		fs := Examine([]*model.Unit{c.u}, now, o)
		if len(fs) != 1 || fs[0].State != c.state || fs[0].Command(o) != c.cmd || !strings.Contains(fs[0].Hint, c.hint) {
			t.Errorf("%s: %+v\ncommand %q\nwant %s, %q, a hint with %q", c.u.Key.Name, fs, commandOf(fs, o), c.state, c.cmd, c.hint)
		}
	}
}

func commandOf(fs []Finding, o cmdline.Origin) string {
	if len(fs) == 0 {
		return ""
	}
	return fs[0].Command(o)
}
