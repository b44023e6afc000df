package policy

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
)

func TestLimitsHoldBackAttemptsPerUnitAndPerHour(t *testing.T) {
	e := &Engine{}
	e.init()
	r := Rule{Name: "r", MaxAttempts: 2, MaxPerHour: 3}
	now := time.Now()
	a := ruleUnit{"r", model.Key{Name: "a"}}
	b := ruleUnit{"r", model.Key{Name: "b"}}
	if !e.allowed(r, a, now) || !e.allowed(r, a, now) || e.allowed(r, a, now) {
		t.Error("a unit got more than maxAttempts attempts")
	}
	if !e.allowed(r, b, now) || e.allowed(r, ruleUnit{"r", model.Key{Name: "c"}}, now) {
		t.Error("maxPerHour did not hold the fourth remediation of the hour back")
	}
	if !e.allowed(r, ruleUnit{"r", model.Key{Name: "c"}}, now.Add(61*time.Minute)) {
		t.Error("an hour later the policy may act again")
	}
	e.forget(a)
	if !e.allowed(r, a, now.Add(2*time.Hour)) {
		t.Error("a unit whose situation ended gets fresh attempts")
	}
}

func TestPoliciesFromConfigAreCheckedAndDefaulted(t *testing.T) {
	rules, err := FromConfig([]config.Policy{{Name: "locks", When: "stack-dead-lock", After: config.Duration(15 * time.Minute), DryRun: true}})
	if err != nil || len(rules) != 1 || rules[0].MaxAttempts != 3 || rules[0].MaxPerHour != 5 || !rules[0].DryRun {
		t.Errorf("rules %+v, err %v", rules, err)
	}
	for _, bad := range []config.Policy{
		{When: "stack-dead-lock", After: config.Duration(time.Minute)},
		{Name: "x", When: "reboot-everything", After: config.Duration(time.Minute)},
		{Name: "x", When: "update-progressing"},
	} {
		if _, err := FromConfig([]config.Policy{bad}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
