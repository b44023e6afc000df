// Package tofu turns tofu-controller Terraform objects
// (infra.contrib.fluxcd.io) into units: pending plans and their approval,
// plan-only and drift-detection modes, drift found, state locks, failures
// and retries (DESIGN.md section 3).
package tofu

import "k8s.io/apimachinery/pkg/runtime/schema"

// Terraforms are the resources driftdeck reads, newest served version
// first (tofu-controller v0.16 still serves the deprecated v1alpha1).
var Terraforms = []schema.GroupVersionResource{
	{Group: "infra.contrib.fluxcd.io", Version: "v1alpha2", Resource: "terraforms"},
	{Group: "infra.contrib.fluxcd.io", Version: "v1alpha1", Resource: "terraforms"},
}

// Values of spec.approvePlan with a meaning of their own; any other value
// approves the pending plan it names.
const (
	ApproveAuto    = "auto"
	ApproveDisable = "disable"
)

// Condition reasons tofu-controller writes.
const (
	ReasonPlannedWithChanges = "TerraformPlannedWithChanges"
	ReasonDriftDetected      = "DriftDetected"
	ReasonLockHeld           = "LockHeld"
	ReasonRetryLimitReached  = "RetryLimitReached"
)
