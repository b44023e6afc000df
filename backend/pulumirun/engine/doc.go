// Package engine runs Pulumi previews and plan-bound applies through the
// Automation API and turns the engine's event stream into pulumirun's events
// as they arrive. It is the driftdeck-pulumi helper's code (Main, Serve) and
// links the Pulumi SDK, so driftdeck itself never imports it (ADR 0008).
package engine
