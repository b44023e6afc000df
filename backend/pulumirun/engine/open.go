package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Target is a pulumirun.Target with, for inline programs, the program.
type Target struct {
	pulumirun.Target
	Program pulumi.RunFunc
}

// opened is a target ready to run: its stack handle and the temporary files made for it.
type opened struct {
	stack      auto.Stack
	configFile string // "" when the stack's own settings are used
	tmp        string
}

func (s *opened) close() { _ = os.RemoveAll(s.tmp) }

func (t Target) validate() error {
	wire := t.Target
	if t.Program != nil && wire.Inline == "" {
		wire.Inline = "in process"
	}
	if err := wire.Validate(); err != nil {
		return err
	}
	if t.Program == nil && t.Inline != "" {
		return fmt.Errorf("no inline program %q in this helper", t.Inline)
	}
	return nil
}

// open selects the target's stack. Inline programs run in a fresh work
// directory and their stack is created when missing; a program directory's
// stack must exist.
func open(ctx context.Context, t Target) (*opened, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	cmd, err := command(t.CLI)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "driftdeck-pulumi-")
	if err != nil {
		return nil, err
	}
	s := &opened{tmp: tmp}
	env := map[string]string{"PULUMI_SKIP_UPDATE_CHECK": "true"}
	for k, v := range t.Env {
		env[k] = v
	}
	if t.BackendURL != "" {
		env["PULUMI_BACKEND_URL"] = t.BackendURL
	}
	opts := []auto.LocalWorkspaceOption{auto.Pulumi(cmd), auto.EnvVars(env)}
	if t.PulumiHome != "" {
		opts = append(opts, auto.PulumiHome(t.PulumiHome))
	}
	if t.Program != nil {
		var work string
		if work, err = t.inlineWorkDir(); err == nil {
			s.stack, err = auto.UpsertStackInlineSource(ctx, t.Stack, t.Project, t.Program, append(opts, auto.WorkDir(work))...)
		}
	} else {
		s.stack, err = auto.SelectStackLocalSource(ctx, t.Stack, t.Dir, opts...)
	}
	if err == nil && len(t.Config) > 0 {
		err = s.overrideConfig(ctx, t.Config)
	}
	if err != nil {
		s.close()
		return nil, cliError(err)
	}
	return s, nil
}

func (t Target) inlineWorkDir() (string, error) {
	dir := t.WorkDir
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256([]byte(t.BackendURL + "\x00" + t.Project + "\x00" + t.Stack))
		dir = filepath.Join(cache, "driftdeck", "inline", hex.EncodeToString(sum[:8]))
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// overrideConfig copies the stack's settings file (it also holds the
// passphrase salt) into the opened and sets the overrides there.
func (s *opened) overrideConfig(ctx context.Context, overrides map[string]pulumirun.ConfigValue) error {
	cfg := auto.ConfigMap{}
	for k, v := range overrides {
		cfg[k] = auto.ConfigValue{Value: v.Value, Secret: v.Secret}
	}
	name := s.stack.Name()
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	s.configFile = filepath.Join(s.tmp, "Pulumi."+name+".yaml")
	orig, err := os.ReadFile(filepath.Join(s.stack.Workspace().WorkDir(), "Pulumi."+name+".yaml"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.WriteFile(s.configFile, orig, 0o600); err != nil {
		return err
	}
	return s.stack.SetAllConfigWithOptions(ctx, cfg, &auto.ConfigOptions{ConfigFile: s.configFile})
}

// cliError keeps the CLI's own error text and drops the Automation API's
// dump of the CLI's whole stdout; the original stays reachable with
// errors.As (auto.IsConcurrentUpdateError and friends keep working).
func cliError(err error) error {
	msg := err.Error()
	i := strings.Index(msg, "\nstderr: ")
	if i < 0 {
		return err
	}
	first, _, _ := strings.Cut(msg, "\n")
	if stderr := strings.TrimSpace(msg[i+len("\nstderr: "):]); stderr != "" {
		first += ": " + stderr
	}
	return &runError{msg: first, err: err}
}

type runError struct {
	msg string
	err error
}

func (e *runError) Error() string { return e.msg }
func (e *runError) Unwrap() error { return e.err }
