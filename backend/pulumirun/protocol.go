package pulumirun

// The driftdeck-pulumi helper runs previews and applies: the Automation API
// and the Pulumi SDK it needs stay out of driftdeck's own memory (ADR 0008).
// driftdeck writes one Request as a line of JSON to the helper's input and
// keeps that input open; closing it cancels the run the way Ctrl-C cancels
// `pulumi up`. The helper writes a Reply per line: an Event for each step,
// diagnostic and summary as it arrives, then one Done, and exits.

// ProtocolVersion changes whenever Request or Reply change meaning.
const ProtocolVersion = 2

// The operations a Request asks for.
const (
	OpPreview = "preview"
	OpApply   = "apply"
	// OpDriftCheck runs `pulumi refresh --preview-only`: it reads every
	// resource from its provider and writes nothing.
	OpDriftCheck = "drift-check"
)

// Request is what driftdeck asks the helper to run.
type Request struct {
	Protocol int
	Op       string // OpPreview, OpApply or OpDriftCheck
	Target   Target
	// PlanPath is where a preview saves its plan ("" saves none) and the
	// plan an apply is bound to.
	PlanPath string
}

// Reply is one line from the helper: exactly one field is set.
type Reply struct {
	Event *Event   `json:",omitempty"`
	Done  *Outcome `json:",omitempty"`
}

// Outcome ends a run.
type Outcome struct {
	Result Result
	// Error is the run's failure, "" when it succeeded.
	Error string `json:",omitempty"`
	// Canceled: the run stopped because driftdeck cancelled it; Error then
	// holds what the CLI said, if anything.
	Canceled bool `json:",omitempty"`
	// PlanChanged is set instead of Error when an apply found the program,
	// config or state changed since the approved preview.
	PlanChanged *PlanChangedError `json:",omitempty"`
}
