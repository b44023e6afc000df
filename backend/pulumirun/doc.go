// Package pulumirun runs Pulumi previews and plan-bound applies through the
// Automation API and turns the engine's event stream into driftdeck's own
// steps as the events arrive (DESIGN.md section 3, "Approve applies" and
// "Previews").
//
// A preview saves a plan; ApplyPlan runs `up` constrained by that plan, so an
// apply cannot do anything the approved preview did not show. Secret and
// unknown values never leave this package: they are replaced by the
// placeholders "[secret]" and "[unknown]".
package pulumirun
