// Package pulumiop turns Pulumi Kubernetes Operator Stacks (operator v1 and v2
// shapes) into units, follows their Update objects, and builds the exact writes
// of Stack actions (DESIGN.md section 3).
package pulumiop

import "k8s.io/apimachinery/pkg/runtime/schema"

// The resources driftdeck reads.
var (
	Stacks     = schema.GroupVersionResource{Group: "pulumi.com", Version: "v1", Resource: "stacks"}
	Updates    = schema.GroupVersionResource{Group: "auto.pulumi.com", Version: "v1alpha1", Resource: "updates"}
	Workspaces = schema.GroupVersionResource{Group: "auto.pulumi.com", Version: "v1alpha1", Resource: "workspaces"}
)

const (
	// AnnotationReconcileRequest queues a run when its value changes.
	AnnotationReconcileRequest = "pulumi.com/reconciliation-request"
	// AnnotationProposedCommit names a commit waiting for approval on a Stack
	// that pins spec.commit (written by CI, or by driftdeck when it finds one).
	AnnotationProposedCommit = "driftdeck.io/proposed-commit"
	// LabelStackName is the label the operator puts on a Stack's Updates.
	LabelStackName = "pulumi.com/stack-name"
)
