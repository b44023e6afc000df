package rootmod

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Tofu runs the user's tofu (or terraform) binary on root modules, keeping
// each root's working data under Cache.
type Tofu struct {
	// Bin is the binary's path.
	Bin string
	// Cache is the directory of every root's working data.
	Cache string

	mu    sync.Mutex
	roots map[string]*sync.Mutex
	// states are the states last pulled, by root (Read).
	states map[string]stampedState
}

// ErrNoBinary: neither tofu nor terraform is installed.
var ErrNoBinary = errors.New("neither tofu nor terraform is on PATH: install OpenTofu (or set tofu: in driftdeck's config to the binary to run)")

// Find is the binary to run: the configured one, else tofu on PATH, else
// terraform.
func Find(configured string) (string, error) {
	if configured != "" {
		path, err := exec.LookPath(configured)
		if err != nil {
			return "", fmt.Errorf("tofu binary %s: %w", configured, err)
		}
		return path, nil
	}
	for _, name := range []string{"tofu", "terraform"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", ErrNoBinary
}

// DefaultCache is where root modules' working data and checkouts live.
func DefaultCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for root modules' working data: %w", err)
	}
	return filepath.Join(dir, "driftdeck", "roots"), nil
}

// New runs bin with working data under cache (DefaultCache when "").
func New(bin, cache string) (*Tofu, error) {
	if cache == "" {
		var err error
		if cache, err = DefaultCache(); err != nil {
			return nil, err
		}
	}
	return &Tofu{Bin: bin, Cache: cache, roots: map[string]*sync.Mutex{}, states: map[string]stampedState{}}, nil
}

// workDir is the root's working data: data/ is its TF_DATA_DIR, plans/ its
// saved plans.
func (t *Tofu) workDir(r Root) string {
	if r.Cache != "" {
		return filepath.Join(r.Cache, r.id())
	}
	return filepath.Join(t.Cache, r.id())
}

// lock serialises what runs on one root: an init and a read of the same
// data directory must not overlap.
func (t *Tofu) lock(r Root) func() {
	t.mu.Lock()
	m, ok := t.roots[r.id()]
	if !ok {
		m = &sync.Mutex{}
		t.roots[r.id()] = m
	}
	t.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// RunError is a tofu run that failed: its exit code and what it said.
type RunError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *RunError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("tofu %s: %s", e.Args[0], msg)
}

// run runs tofu on r's module with its workspace and working data; the
// user's environment passes through (credentials, TF_CLI_CONFIG_FILE,
// TF_PLUGIN_CACHE_DIR). Exit code 2 of a -detailed-exitcode plan is no
// error: code says it.
func (t *Tofu) run(ctx context.Context, r Root, args ...string) (out []byte, code int, err error) {
	data := filepath.Join(t.workDir(r), "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, 0, err
	}
	cmd := exec.CommandContext(ctx, t.Bin, append([]string{"-chdir=" + r.Dir}, args...)...)
	cmd.Env = append(os.Environ(),
		"TF_DATA_DIR="+data,
		"TF_WORKSPACE="+r.Workspace,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
	)
	// A cancelled run ends tofu as Ctrl-C in a terminal would: it releases
	// a lock it holds rather than leave it behind, and the interrupt reaches
	// the whole process group, so a provisioner's command ends too (tofu
	// leaves it running when only tofu is interrupted).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	exited := make(chan struct{})
	cmd.Cancel = func() error {
		go interruptLateFollowers(cmd.Process.Pid, exited)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	close(exited)
	if ctx.Err() != nil && cmd.Process != nil {
		// A provisioner's command that started as tofu stopped can outlive
		// it; nothing waits for it now.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), 0, nil
	case errors.As(err, &exit) && exit.ExitCode() == 2 && hasArg(args, "-detailed-exitcode"):
		return stdout.Bytes(), 2, nil
	case errors.As(err, &exit):
		return stdout.Bytes(), exit.ExitCode(), &RunError{Args: args, Code: exit.ExitCode(), Stderr: stderr.String()}
	}
	return nil, -1, fmt.Errorf("running %s: %w", t.Bin, err)
}

// interruptLateFollowers interrupts, every two seconds until tofu exits,
// the commands its group started after the first interrupt.
func interruptLateFollowers(leader int, exited <-chan struct{}) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			return
		case <-tick.C:
			interruptFollowers(leader)
		}
	}
}

func hasArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}

// initialised tells whether r's working data has been initialised with
// its current backend settings.
func (t *Tofu) initialised(r Root) bool {
	_, err := os.Stat(filepath.Join(t.workDir(r), "initialised"))
	return err == nil
}

// ensureInit runs init once per working data: the backend, and the
// providers the module's lock file names; never -upgrade, never a change
// to the lock file.
func (t *Tofu) ensureInit(ctx context.Context, r Root) error {
	if t.initialised(r) {
		return nil
	}
	return t.init(ctx, r)
}

func (t *Tofu) init(ctx context.Context, r Root) error {
	args := []string{"init", "-input=false", "-no-color", "-lockfile=readonly", "-reconfigure"}
	for _, bc := range r.BackendConfig {
		args = append(args, "-backend-config="+bc)
	}
	if _, _, err := t.run(ctx, r, args...); err != nil {
		return fmt.Errorf("initialising %s: %w", r.Dir, err)
	}
	return os.WriteFile(filepath.Join(t.workDir(r), "initialised"), nil, 0o600)
}

// needsInit tells whether tofu refused to run because the module's backend
// or providers changed since init.
func needsInit(err error) bool {
	var re *RunError
	return errors.As(err, &re) && (strings.Contains(re.Stderr, "Backend initialization required") ||
		strings.Contains(re.Stderr, "Inconsistent dependency lock file") ||
		strings.Contains(re.Stderr, "Required plugins are not installed") ||
		strings.Contains(re.Stderr, "Module not installed"))
}

// prepare checks out and initialises r's working data when it is not yet.
func (t *Tofu) prepare(ctx context.Context, r Root) error {
	if t.initialised(r) {
		return nil
	}
	defer t.lock(r)()
	if err := ensureSource(ctx, r, false); err != nil {
		return err
	}
	return t.ensureInit(ctx, r)
}

// runInit runs a command after init (and after a checkout, for a module
// from Git); once more after a re-init when the module's backend or
// providers changed since the last.
func (t *Tofu) runInit(ctx context.Context, r Root, args ...string) ([]byte, int, error) {
	if err := ensureSource(ctx, r, false); err != nil {
		return nil, 0, err
	}
	if err := t.ensureInit(ctx, r); err != nil {
		return nil, 0, err
	}
	out, code, err := t.run(ctx, r, args...)
	if needsInit(err) {
		if err := t.init(ctx, r); err != nil {
			return nil, 0, err
		}
		out, code, err = t.run(ctx, r, args...)
	}
	return out, code, err
}
