package model

// ActionKind names an action as the command line does (pause, sync, ...).
// The kinds and what each does are backend/actions' table (actions.Kind is
// this type); it lives here so that the screens, which show verdicts, need
// nothing of the package that writes.
type ActionKind string

// Availability says whether an action can be offered for a unit, and why not.
type Availability struct {
	Kind    ActionKind
	Enabled bool
	WhyNot  string
	// Requestable: only the user's rights keep it from being done, and they
	// may ask for it in a change request that another person approves.
	Requestable bool
}
