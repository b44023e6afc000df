package fleetgen

import (
	"fmt"
	"time"
)

// TerraformState is the state a Terraform object is generated in.
type TerraformState string

// The Terraform states of the mix, with their share of every 100.
const (
	TerraformApplied TerraformState = "applied" // 80: the latest plan applied
	TerraformPending TerraformState = "pending" // 8: a plan waits for approval
	TerraformDrift   TerraformState = "drift"   // 4: plan-only drift detection found drift
	TerraformLocked  TerraformState = "locked"  // 3: the state lock is held
	TerraformFailed  TerraformState = "failed"  // 5: apply failed, retried
)

// StateOfTerraform is the state Terraform i is generated in.
func StateOfTerraform(i int) TerraformState {
	switch m := i % 100; {
	case m < 80:
		return TerraformApplied
	case m < 88:
		return TerraformPending
	case m < 92:
		return TerraformDrift
	case m < 95:
		return TerraformLocked
	}
	return TerraformFailed
}

// TerraformNamespaceOf is the namespace of Terraform i.
func TerraformNamespaceOf(i int) string { return "team-" + teams[i%len(teams)] }

// Terraform returns Terraform i (infra.contrib.fluxcd.io/v1alpha2) and its
// status, shaped like tofu-controller v0.16 writes it (about 5 KB: 30
// inventory entries, outputs, the plan and lock ids). Status is a
// subresource.
func Terraform(i int, now time.Time) (obj, status map[string]any) {
	r := rng(fmt.Sprint("terraform", i))
	team, project, env := teams[i%len(teams)], pick(r, projects), pick(r, envs)
	name := fmt.Sprintf("%s-%s-%s-%04d", team, project, env, i)
	ns, state := TerraformNamespaceOf(i), StateOfTerraform(i)
	head := commit(name, "head")
	headRev := "main@sha1:" + head
	appliedRev := headRev
	if state != TerraformApplied {
		appliedRev = "main@sha1:" + commit(name, "previous")
	}
	planID := "plan-main-" + head
	gen := int64(1 + r.IntN(20))
	at := now.Add(-time.Duration(1+r.IntN(900)) * time.Second)

	spec := map[string]any{
		"interval": "10m", "path": "./terraform/" + project, "workspace": "default",
		"sourceRef":            map[string]any{"kind": "GitRepository", "name": "infrastructure", "namespace": FluxNamespace},
		"approvePlan":          "auto",
		"storeReadablePlan":    "human",
		"writeOutputsToSecret": map[string]any{"name": name + "-outputs", "outputs": []any{"vpc_id", "subnet_ids", "endpoint"}},
		"vars": []any{map[string]any{"name": "region", "value": "eu-west-1"}, map[string]any{"name": "env", "value": env},
			map[string]any{"name": "team", "value": team}},
		"varsFrom": []any{map[string]any{"kind": "Secret", "name": "aws-credentials"}},
		"runnerPodTemplate": map[string]any{"metadata": map[string]any{"labels": map[string]any{"team": team}},
			"spec": map[string]any{"env": []any{map[string]any{"name": "TF_LOG", "value": "warn"}}}},
	}
	switch state {
	case TerraformPending:
		spec["approvePlan"] = "" // manual approval
	case TerraformDrift:
		spec["approvePlan"] = "disable" // drift detection only
	}
	obj = map[string]any{
		"apiVersion": "infra.contrib.fluxcd.io/v1alpha2",
		"kind":       "Terraform",
		"metadata": map[string]any{
			"name": name, "namespace": ns,
			"finalizers": []any{"finalizers.tf.contrib.fluxcd.io"},
			"labels":     map[string]any{"team": team, "env": env},
		},
		"spec": spec,
	}

	tfTypes := []string{"aws_vpc", "aws_subnet", "aws_security_group", "aws_iam_role", "aws_iam_role_policy_attachment", "aws_route53_record"}
	entries := make([]any, 0, 30)
	for j := range 30 {
		t := tfTypes[j%len(tfTypes)]
		entries = append(entries, map[string]any{"n": fmt.Sprintf("%s_%d", project, j), "t": t,
			"id": fmt.Sprintf("arn:aws:%s:eu-west-1:123456789012:%s/%s", t[4:7], name, commit(name, "res", j)[:17])})
	}
	ready := condition("Ready", "True", "TerraformAppliedSucceed", "Applied successfully: "+appliedRev, gen, at)
	plan := map[string]any{"lastApplied": "plan-main-" + commit(name, "previous")}
	if state == TerraformApplied {
		plan["lastApplied"] = planID
	}
	status = map[string]any{
		"observedGeneration":     gen,
		"lastAppliedRevision":    appliedRev,
		"lastAttemptedRevision":  headRev,
		"lastPlannedRevision":    headRev,
		"lastPlannedGeneration":  gen,
		"lastPlanAt":             stamp(at),
		"lastHandledReconcileAt": stamp(at.Add(-time.Hour)),
		"availableOutputs":       []any{"vpc_id", "subnet_ids", "endpoint", "security_group_id"},
		"inventory":              map[string]any{"entries": entries},
		"plan":                   plan,
	}
	switch state {
	case TerraformPending:
		msg := fmt.Sprintf("Plan generated: set approvePlan: %q to approve this plan.", planID)
		ready = condition("Ready", "Unknown", "TerraformPlannedWithChanges", msg, gen, at)
		plan["pending"] = planID
	case TerraformDrift:
		ready = condition("Ready", "False", "DriftDetected", "Drift detected: 3 to change, 1 to destroy", gen, at)
		plan["isDriftDetectionPlan"] = true
		status["lastDriftDetectedAt"] = stamp(at)
	case TerraformLocked:
		lock := "f4c1" + commit(name, "lock")[:28]
		ready = condition("Ready", "False", "LockHeld", fmt.Sprintf("Terraform Locked with Lock Identifier: %s", lock), gen, at)
		status["lock"] = map[string]any{"pending": lock, "lastApplied": ""}
	case TerraformFailed:
		ready = condition("Ready", "False", "TerraformAppliedFail", "error applying plan: AccessDenied: not authorized to perform iam:CreateRole", gen, at)
		status["reconciliationFailures"] = int64(1 + r.IntN(4))
	}
	status["conditions"] = []any{ready,
		condition("Plan", "True", "TerraformPlannedWithChanges", "Plan generated", gen, at),
		condition("Output", "True", "TerraformOutputsWritten", "Outputs written", gen, at)}
	if state == TerraformApplied {
		status["lastSuccessfulReconcileAt"] = stamp(at)
	}
	return obj, status
}
