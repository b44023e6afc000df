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
	// Unsure: the check could not be made (the cluster or Argo CD did not
	// answer, the context is not connected): WhyNot says so, and it is no
	// answer to keep; the next key asks again.
	Unsure bool
}
