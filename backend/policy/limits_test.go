package policy

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
)

func TestMaxPerHourHoldsBackTheRulesRemediationsOfTheHour(t *testing.T) {
	e := &Engine{}
	e.init()
	r := Rule{Name: "r", MaxAttempts: 2, MaxPerHour: 3}
	now := time.Now()
	for i := range 3 {
		if !e.perHour(r, now) {
			t.Fatalf("remediation %d of the hour held back", i+1)
		}
	}
	if e.perHour(r, now) {
		t.Error("maxPerHour did not hold the fourth remediation of the hour back")
	}
	if !e.perHour(r, now.Add(61*time.Minute)) {
		t.Error("an hour later the policy may act again")
	}
}

func TestAnAnnotationAPersonBrokeHoldsThePolicyBack(t *testing.T) {
	if _, err := records(&model.Unit{Remediations: "three"}); err == nil {
		t.Error("a malformed attempts annotation was read as a count")
	}
	recs, err := records(&model.Unit{Remediations: `{"a":{"attempts":2,"max":3,"last":"2026-12-01T10:00:00Z"}}`})
	if err != nil || recs["a"].Attempts != 2 {
		t.Errorf("records %+v, %v", recs, err)
	}
}

func TestPoliciesFromConfigAreCheckedAndDefaulted(t *testing.T) {
	rules, err := FromConfig([]config.Policy{{Name: "locks", When: "stack-dead-lock", After: config.Duration(15 * time.Minute), DryRun: true}})
	if err != nil || len(rules) != 1 || rules[0].MaxAttempts != 3 || rules[0].MaxPerHour != 5 || !rules[0].DryRun || rules[0].AllowCloudCancel {
		t.Errorf("rules %+v, err %v", rules, err)
	}
	for _, bad := range []config.Policy{
		{When: "stack-dead-lock", After: config.Duration(time.Minute)},
		{Name: "x", When: "reboot-everything", After: config.Duration(time.Minute)},
		{Name: "x", When: "update-progressing"},
		{Name: "x", When: "argo-hook-stuck", After: config.Duration(time.Minute), AllowCloudCancel: true},
	} {
		if _, err := FromConfig([]config.Policy{bad}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
