// Package testtofu is a root module on disk and its user, who runs the
// real OpenTofu (DRIFTDECK_TOFU) on it by hand, as tests of root modules
// need: offline, on terraform_data resources, which need no provider.
package testtofu

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Module is a root module directory and the real tofu that runs it.
type Module struct {
	t   testing.TB
	Bin string
	Dir string
	// Env is the user's environment: an empty CLI config (no warning
	// about a missing ~/.terraformrc), no prompts.
	Env []string
}

// New writes config as the module's main.tf in a new directory.
func New(t testing.TB, config string) *Module {
	t.Helper()
	bin := testcluster.Tool(t, "DRIFTDECK_TOFU", "opentofu")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(t.TempDir(), "empty.tfrc")
	if err := os.WriteFile(rc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "TF_INPUT=0")
	return &Module{t: t, Bin: bin, Dir: dir, Env: env}
}

// User runs tofu in the module as its user would (their own .terraform),
// and returns what it printed.
func (m *Module) User(args ...string) string {
	m.t.Helper()
	cmd := exec.Command(m.Bin, args...)
	cmd.Dir, cmd.Env = m.Dir, m.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		m.t.Fatalf("tofu %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// KilledApply starts an apply (args) that holds the state lock, waits
// until held says it holds it, and kills it with SIGKILL, as a crashed CI
// runner ends: no unlock.
func (m *Module) KilledApply(held func() bool, args ...string) {
	m.t.Helper()
	cmd := exec.Command(m.Bin, append([]string{"apply", "-auto-approve", "-no-color"}, args...)...)
	cmd.Dir, cmd.Env = m.Dir, m.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	testcluster.Eventually(m.t, 60*time.Second, "the apply holds the state lock", func() bool {
		select {
		case <-exited:
			m.t.Fatalf("the apply ended before it was killed: %s", out.String())
		default:
		}
		return held()
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// Sleepy is a module whose server is replaced when its size changes, and
// whose creation holds the apply for var.hold seconds (a local-exec
// provisioner: no provider download). It has a sensitive output.
const Sleepy = `
variable "size" { default = "small" }
variable "hold" { default = "0" }
resource "terraform_data" "server" {
  input            = { size = var.size }
  triggers_replace = [var.size]
  provisioner "local-exec" { command = "sleep ${var.hold}" }
}
resource "terraform_data" "zone" {
  count = 2
  input = "zone-${count.index}"
}
output "endpoint" { value = "db-${var.size}.internal" }
output "password" {
  value     = "hunter2-${var.size}"
  sensitive = true
}
`
