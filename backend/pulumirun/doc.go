// Package pulumirun runs Pulumi previews and plan-bound applies and streams
// the engine's steps as driftdeck's own events as they arrive (DESIGN.md
// section 3, "Approve applies" and "Previews"). The runs happen in the
// driftdeck-pulumi helper (package engine, ADR 0008); this package holds the
// types, the helper's protocol and the client, and never links the Pulumi
// SDK.
//
// A preview saves a plan; ApplyPlan runs `up` constrained by that plan, so an
// apply cannot do anything the approved preview did not show. Secret and
// unknown values never reach driftdeck: the engine replaces them with the
// placeholders "[secret]" and "[unknown]".
package pulumirun
