package pulumirun

import "errors"

// Target is the stack to preview or apply and the program that drives it.
// It is sent to the driftdeck-pulumi helper as it is.
type Target struct {
	Stack string // "dev", or "org/project/dev"

	Dir string // a program directory holding Pulumi.yaml
	// Inline names a Go program built into the helper, run as the project
	// Project; only helpers built for tests hold any.
	Inline  string
	Project string
	// WorkDir keeps an inline program's stack settings between runs: the
	// settings hold the passphrase salt, so a preview and the apply of its
	// plan must share them. "" uses a directory under the user cache dir
	// named after the backend, project and stack.
	WorkDir string

	BackendURL string            // file://..., s3://..., https://api.pulumi.com; "" keeps the CLI's choice
	Env        map[string]string // variables the user allows the CLI to see (PULUMI_CONFIG_PASSPHRASE, cloud credentials)
	// Config overrides the stack's config for this run only; the stack's
	// own settings file is never rewritten.
	Config     map[string]ConfigValue
	PulumiHome string // "" keeps the CLI's default (~/.pulumi or $PULUMI_HOME)
	CLI        string // path to the pulumi binary; "" runs pulumi from PATH
}

// ConfigValue is one config setting; a secret one is encrypted into the
// run's copy of the stack settings.
type ConfigValue struct {
	Value  string
	Secret bool
}

// Validate says what is missing from t, or what contradicts.
func (t Target) Validate() error {
	switch {
	case t.Stack == "":
		return errors.New("no stack name")
	case t.Dir == "" && t.Inline == "":
		return errors.New("no program: set a program directory")
	case t.Dir != "" && t.Inline != "":
		return errors.New("both a program directory and an inline program are set")
	case t.Inline != "" && t.Project == "":
		return errors.New("an inline program needs a project name")
	}
	return nil
}
