package rootmod

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// module is a root module on disk and a user who runs the real OpenTofu
// on it by hand (their own .terraform), beside driftdeck (its own working
// data in a cache directory).
type module struct {
	t    testing.TB
	bin  string
	dir  string
	env  []string
	tofu *Tofu
}

func newModule(t testing.TB, config string) *module {
	t.Helper()
	bin := testcluster.Tool(t, "DRIFTDECK_TOFU", "opentofu")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	rc := filepath.Join(home, "empty.tfrc")
	if err := os.WriteFile(rc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tofu, err := New(bin, filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "TF_INPUT=0")
	return &module{t: t, bin: bin, dir: dir, env: env, tofu: tofu}
}

func (m *module) root() Root {
	m.t.Helper()
	r, err := FromDir(m.dir)
	if err != nil {
		m.t.Fatal(err)
	}
	return r
}

// user runs tofu in the module as its user would.
func (m *module) user(args ...string) string {
	m.t.Helper()
	cmd := exec.Command(m.bin, args...)
	cmd.Dir, cmd.Env = m.dir, m.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		m.t.Fatalf("tofu %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// killedApply starts an apply that holds the state lock while a
// provisioner sleeps, waits until it holds it, and kills it with SIGKILL
// as a crashed CI runner would end: no unlock.
func (m *module) killedApply(held func() bool, args ...string) {
	m.t.Helper()
	cmd := exec.Command(m.bin, append([]string{"apply", "-auto-approve", "-no-color"}, args...)...)
	cmd.Dir, cmd.Env = m.dir, m.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	testcluster.Eventually(m.t, 60*time.Second, "the apply holds the state lock", func() bool {
		if cmd.ProcessState != nil {
			m.t.Fatalf("the apply ended: %s", out.String())
		}
		return held()
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

func ctxOf(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var noOpts = diff.Options{}
