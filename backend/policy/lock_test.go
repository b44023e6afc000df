package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
)

// Which locks a dead-lock rule breaks: only old ones whose holder is gone.
func TestADeadLockRuleBreaksOnlyAnOldLockWhoseHolderIsGone(t *testing.T) {
	now := time.Now()
	rule := Rule{Name: "locks", When: StackDeadLock, After: 10 * time.Minute}
	old, young := now.Add(-15*time.Minute), now.Add(-2*time.Minute)
	failing := &model.Unit{Run: model.Stuck, Observed: model.Stuck, Stack: &model.StackFacts{}}
	updating := &model.Unit{Run: model.Stuck, Observed: model.Running, Stack: &model.StackFacts{CurrentUpdate: "locked-7f3a"}}
	requested := &model.Unit{Run: model.Stuck, Queued: true, Stack: &model.StackFacts{}}
	elsewhere := pulumistate.Lock{ID: "l1", PID: 7, User: "pulumi", Host: "locked-workspace-0", Since: old, Holder: pulumistate.HolderUnknown}
	cloudLock := pulumistate.Lock{ID: "u-42", User: "ci-bot", Kind: "update", Since: old, Holder: pulumistate.HolderUnknown}
	allowing := rule
	allowing.AllowCloudCancel = true
	for _, c := range []struct {
		name  string
		rule  Rule
		unit  *model.Unit
		lock  pulumistate.Lock
		cloud bool
		ok    bool
		says  string
	}{
		{"a young lock of a dead pid", rule, failing, pulumistate.Lock{ID: "l0", PID: 9, Since: young, Holder: pulumistate.HolderDead}, false, false, "2m old, not older than 10m"},
		{"an old lock of a dead pid", rule, failing, pulumistate.Lock{ID: "l0", PID: 9, Since: old, Holder: pulumistate.HolderDead}, false, true, "by pid 9 on this host, which is gone"},
		{"an old lock of a live pid", rule, failing, pulumistate.Lock{ID: "l0", PID: 9, Since: old, Holder: pulumistate.HolderAlive}, false, false, "which still runs"},
		{"a young lock of another host", rule, failing, pulumistate.Lock{ID: "l1", Host: "w-0", Since: young, Holder: pulumistate.HolderUnknown}, false, false, "not older than"},
		{"an old lock of another host, nothing runs", rule, failing, elsewhere, false, true, "the operator runs nothing for the Stack"},
		{"an old lock of another host while an update runs", rule, updating, elsewhere, false, false, "update locked-7f3a is in progress"},
		{"an old lock of another host while a run is requested", rule, requested, elsewhere, false, false, "requested run is not handled yet"},
		{"a Pulumi Cloud update", rule, failing, cloudLock, true, false, "allowCloudCancel"},
		{"a Pulumi Cloud update, cancels allowed", allowing, failing, cloudLock, true, true, "ci-bot (update)"},
		{"a young Pulumi Cloud update, cancels allowed", allowing, failing, pulumistate.Lock{ID: "u-43", Since: young, Holder: pulumistate.HolderUnknown}, true, false, "not older than"},
	} {
		v := lockVerdict(c.rule, c.unit, []pulumistate.Lock{c.lock}, c.cloud, now)
		if v.ok != c.ok || !strings.Contains(v.why, c.says) {
			t.Errorf("%s: %v %q; want %v, saying %q", c.name, v.ok, v.why, c.ok, c.says)
		}
		// A lock left alone is said once as it ages, not once a minute.
		if later := lockVerdict(c.rule, c.unit, []pulumistate.Lock{c.lock}, c.cloud, now.Add(time.Minute)); !c.ok && later.ok == v.ok && later.topic != v.topic {
			t.Errorf("%s: the topic moved with the age: %q, then %q", c.name, v.topic, later.topic)
		}
	}
}
