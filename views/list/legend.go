package list

// LegendEntry explains one column of the list and the values it shows.
type LegendEntry struct{ Column, Values string }

// Legend is what the list's columns and their words mean, for the help
// screen; each column's values are the ones its cell functions print.
var Legend = []LegendEntry{
	{cursorGlyph + " " + markGlyph, cursorGlyph + " the cursor's row · " + markGlyph + " a marked row"},
	{"CONTEXT", "the kubeconfig context the unit is in (with several connected)"},
	{"ENGINE", "argocd Application · pulumi Stack · flux ks Kustomization · flux hr HelmRelease · tofu tf Terraform · appset ApplicationSet"},
	{"NAMESPACE/NAME", "! in front: part of the unit could not be read (its detail says what)"},
	{"SYNC", "in sync · drifted (the live objects differ from the desired state) · unknown"},
	{"HEALTH", "healthy · progress (not ready yet) · degraded · suspend (suspended) · missing · unknown"},
	{"AUTO", "auto (applies changes itself) · self-heal (also undoes live edits) · manual · paused (by driftdeck, which recorded what it was) · " +
		"suspended (by someone else) · expired (a driftdeck pause past its expiry) · reverted (paused by driftdeck, but the automation is back on)"},
	{"RUN", "idle · running · stuck (running or waiting longer than its rule allows: the detail names the rule) · failed · " +
		"awaiting (a change waits for approval) · blocked (a sync window holds it)"},
	{"SINCE", "how long the unit has been in its RUN state"},
	{"REV", "the revision applied last, a commit cut to 7 characters"},
	{"REASON", "why the unit is as it is: the run's message, a pause's record, the stuck rule"},
}
