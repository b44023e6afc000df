// Package config reads driftdeck's own settings from the XDG config directory
// ($XDG_CONFIG_HOME/driftdeck/config.yaml, ~/.config when unset): theme, key
// bindings, stuck thresholds, and which local program runs a Pulumi Stack.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Config is the file's content. Every field is optional.
type Config struct {
	// Theme: auto, dark, light, high-contrast or no-color.
	Theme string `json:"theme,omitempty"`
	// Keys rebinds keys by binding name, e.g. {sync: ["S"]}.
	Keys map[string][]string `json:"keys,omitempty"`
	// Thresholds after which a run counts as stuck.
	Thresholds struct {
		Running Duration `json:"running,omitempty"`
		Queued  Duration `json:"queued,omitempty"`
	} `json:"thresholds,omitempty"`
	// Stacks maps Pulumi Stacks to local programs for previews.
	Stacks []StackProgram `json:"stacks,omitempty"`
	// Destinations map Argo CD destination clusters to the kubeconfig
	// contexts that reach them, for an Application's live resource tree
	// (the in-cluster destination needs no entry).
	Destinations []Destination `json:"destinations,omitempty"`
	// Policies are the remediations `driftdeck agent` may do on its own:
	// none unless listed here.
	Policies []Policy `json:"policies,omitempty"`
	// DriftChecks makes `driftdeck agent` check every Stack for drift on a
	// schedule (a refresh preview each, which writes nothing): off unless set.
	DriftChecks *DriftChecks `json:"driftChecks,omitempty"`
	// Roots are Terraform and OpenTofu root modules outside the cluster,
	// listed beside the GitOps units (besides those of --root).
	Roots []RootModule `json:"roots,omitempty"`
	// Tofu is the binary that reads and runs them (default: tofu on PATH,
	// else terraform).
	Tofu string `json:"tofu,omitempty"`
	// RootPlans makes `driftdeck agent` plan every root module on a
	// schedule (tofu plan, saved, never applied): off unless set.
	RootPlans *DriftChecks `json:"rootPlans,omitempty"`
}

// RootModule is one root module: a directory, and the workspaces of it
// that are units.
type RootModule struct {
	// Name of its units (default: the directory's name).
	Name string `json:"name,omitempty"`
	// Path is the module's directory; a relative path is relative to the
	// config file. Either Path or Git.
	Path string `json:"path,omitempty"`
	// Git is a repository the module is checked out from, at Ref (a
	// branch, a tag or a full commit), in its directory Dir.
	Git *RootGit `json:"git,omitempty"`
	// Workspaces are its units, root/<workspace>/<name> (default: default).
	Workspaces []string `json:"workspaces,omitempty"`
	// VarFiles are passed to every plan, relative to the module.
	VarFiles []string `json:"varFiles,omitempty"`
	// BackendConfig are init's -backend-config values (key=value or a file).
	BackendConfig []string `json:"backendConfig,omitempty"`
}

// DriftChecks is the agent's drift check schedule.
type DriftChecks struct {
	// Every is how often each Stack is checked (at least 1m).
	Every Duration `json:"every"`
	// Jitter spreads the checks: each Stack starts up to this much later,
	// by a fixed share of its own.
	Jitter Duration `json:"jitter,omitempty"`
	// Concurrency is how many checks may run at once (default 1).
	Concurrency int `json:"concurrency,omitempty"`
}

// Check says what is wrong with the driftChecks schedule, nil when nothing.
func (d *DriftChecks) Check() error {
	return d.check("driftChecks", "check each Stack")
}

// CheckPlans says what is wrong with the rootPlans schedule.
func (d *DriftChecks) CheckPlans() error {
	return d.check("rootPlans", "plan each root module")
}

func (d *DriftChecks) check(field, what string) error {
	switch {
	case time.Duration(d.Every) < time.Minute:
		return fmt.Errorf("%s: every: want how often to %s, at least 1m (a refresh reads every resource)", field, what)
	case d.Jitter < 0 || d.Concurrency < 0:
		return fmt.Errorf("%s: jitter and concurrency cannot be negative", field)
	}
	return nil
}

// Policy is one opt-in remediation of the agent.
type Policy struct {
	// Name goes into the Event and the audit line of every remediation.
	Name string `json:"name"`
	// When names the situation: stack-dead-lock (a Stack failing on a lock
	// held longer than After: break it, then re-request a run),
	// update-progressing (an Update Progressing longer than After:
	// re-request) or argo-hook-stuck (an Argo CD operation Running on a hook
	// longer than After: terminate, then sync again).
	When string `json:"when"`
	// After is how long the situation must last first.
	After Duration `json:"after"`
	// DryRun: say what would be done, write nothing.
	DryRun bool `json:"dryRun,omitempty"`
	// MaxAttempts per unit (default 3); then a person must look.
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// MaxPerHour remediations of this policy, all units together (default 5).
	MaxPerHour int `json:"maxPerHour,omitempty"`
	// AllowCloudCancel lets a stack-dead-lock policy cancel an update on
	// Pulumi Cloud, which cannot tell whether its client still runs: off
	// unless set, such locks are left to a person (driftdeck unlock).
	AllowCloudCancel bool `json:"allowCloudCancel,omitempty"`
}

// Destination names one Argo CD destination cluster, by server URL or by
// name (spec.destination.server / .name), and the context that reaches it.
type Destination struct {
	Server  string `json:"server,omitempty"`
	Name    string `json:"name,omitempty"`
	Context string `json:"context"`
}

// DestinationContexts indexes the destinations by server and by name, and
// says which entries are unusable.
func (c *Config) DestinationContexts() (byServer, byName map[string]string, err error) {
	byServer, byName = map[string]string{}, map[string]string{}
	for i, d := range c.Destinations {
		switch {
		case d.Context == "":
			return nil, nil, fmt.Errorf("destinations[%d]: no context", i)
		case d.Server == "" && d.Name == "":
			return nil, nil, fmt.Errorf("destinations[%d]: name a server or a name for context %q", i, d.Context)
		}
		if d.Server != "" {
			byServer[strings.TrimSuffix(d.Server, "/")] = d.Context
		}
		if d.Name != "" {
			byName[d.Name] = d.Context
		}
	}
	return byServer, byName, nil
}

// StackProgram says where the program of a Stack lives on this machine and
// which environment variables a preview may see.
type StackProgram struct {
	// Unit is the Stack as the command line names it: pulumi/<namespace>/<name>.
	Unit string `json:"unit"`
	// Dir is the directory holding Pulumi.yaml.
	Dir string `json:"dir"`
	// Stack is the Pulumi stack name (default: the Stack's spec.stack).
	Stack string `json:"stack,omitempty"`
	// Backend URL (default: the Stack's spec.backend, else PULUMI_BACKEND_URL).
	Backend string `json:"backend,omitempty"`
	// Env lists the environment variables passed through to pulumi.
	Env []string `json:"env,omitempty"`
}

// RootGit is where in a Git repository a root module lives.
type RootGit struct {
	URL string `json:"url"`
	Ref string `json:"ref,omitempty"` // default: the remote's HEAD
	Dir string `json:"dir,omitempty"` // default: the repository's root
}

// Duration reads "10m" style durations.
type Duration time.Duration

// UnmarshalJSON accepts a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := yaml.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration like \"10m\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration like \"10m\": %w", err)
	}
	*d = Duration(v)
	return nil
}

// DefaultPath is where the config file is looked for.
func DefaultPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "driftdeck", "config.yaml")
}

// Load reads the config file at path. A missing file is an empty config; an
// unreadable or invalid one is an error naming the file.
func Load(path string) (*Config, error) {
	c := &Config{}
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if err := yaml.UnmarshalStrict(b, c); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	for i, r := range c.Roots {
		switch {
		case r.Git != nil && r.Path != "":
			return nil, fmt.Errorf("config %s: roots[%d]: a path or git, not both", path, i)
		case r.Git != nil && r.Git.URL == "":
			return nil, fmt.Errorf("config %s: roots[%d]: git: no url", path, i)
		case r.Git != nil:
			continue
		case r.Path == "":
			return nil, fmt.Errorf("config %s: roots[%d]: no path (nor git)", path, i)
		}
		c.Roots[i].Path = ExpandHome(r.Path)
		if !filepath.IsAbs(c.Roots[i].Path) {
			c.Roots[i].Path = filepath.Join(filepath.Dir(path), r.Path)
		}
	}
	for i := range c.Stacks {
		c.Stacks[i].Dir = ExpandHome(c.Stacks[i].Dir)
	}
	return c, nil
}

// ExpandHome reads a leading ~/ as the home directory, as a shell would.
func ExpandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// StuckThresholds returns the thresholds, defaults filled in.
func (c *Config) StuckThresholds() model.Thresholds {
	th := model.DefaultThresholds
	if c.Thresholds.Running > 0 {
		th.Running = time.Duration(c.Thresholds.Running)
	}
	if c.Thresholds.Queued > 0 {
		th.Queued = time.Duration(c.Thresholds.Queued)
	}
	return th
}
