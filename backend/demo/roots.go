package demo

import (
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

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/rootmod"
)

// The demo's Terraform root modules, outside its cluster as they would be
// in a repository: real modules of terraform_data resources (no provider,
// no network) with the local backend, in the demo's state directory, made
// and brought into their states with the user's own tofu the first time,
// and kept with the rest of the demo (reset removes them):
//
//   - network: applied, planned since: in sync;
//   - dns: a record changed by hand with another apply, found by a plan:
//     drifted, its plan waiting to be applied;
//   - edge: a resource added to the code, planned: a plan waiting to be
//     applied;
//   - peering: an apply that runs for as long as the workbench does, and
//     holds the state lock meanwhile (HoldLock).
//
// Without tofu on PATH the demo has none: they are what tofu reads.

// rootWork is what the demo's root modules run in the background (their
// first making under the workbench, the long apply and its end): Cleanup
// waits for it, so that nothing writes to the demo's directory after the
// command that started it.
var rootWork sync.WaitGroup

// InBackground runs f as background work of the demo's root modules; it
// must end once the command's context does.
func InBackground(f func()) { rootWork.Go(f) }

// WaitBackground waits for that work to end: call it once the context it
// runs under is cancelled.
func WaitBackground() { rootWork.Wait() }

// rootsDir is where the demo keeps its root modules, rootsCache their
// working data and plans, and pristineRoots both as first made: a reset
// puts them back, so that the plans' ids are those of before.
func rootsDir(stateDir string) string      { return filepath.Join(stateDir, "demo", "roots") }
func rootsCache(stateDir string) string    { return filepath.Join(stateDir, "demo", "roots-cache") }
func pristineRoots(stateDir string) string { return filepath.Join(stateDir, "demo", "roots-pristine") }

// demoRoot is one module of the demo and how it is brought into its state.
type demoRoot struct {
	name, config string
	// byHand are the applies its user made, in order (each a -var list).
	byHand [][]string
	// edited, when set, replaces main.tf after them (a change in the code).
	edited string
	// planned: driftdeck planned it once since.
	planned bool
}

const demoNetwork = `
variable "cidr" { default = "10.40.0.0/16" }
resource "terraform_data" "vpc" { input = { cidr = var.cidr, name = "prod" } }
resource "terraform_data" "subnet" {
  count = 3
  input = cidrsubnet(var.cidr, 4, count.index)
}
output "vpc_cidr" { value = var.cidr }
`

const demoDNS = `
variable "ttl" { default = 300 }
resource "terraform_data" "zone" { input = "prod.example.com" }
resource "terraform_data" "api_record" { input = { name = "api", ttl = var.ttl, target = "lb-prod-1" } }
output "zone" { value = "prod.example.com" }
output "admin_token" {
  value     = "demo-token-do-not-show"
  sensitive = true
}
`

const demoEdge = `
resource "terraform_data" "lb" { input = { name = "edge-prod", listeners = [80, 443] } }
`

const demoPeering = `
variable "hold" { default = "0" }
variable "peer" { default = "shared-services" }
resource "terraform_data" "peering" {
  input            = var.peer
  triggers_replace = [var.peer]
  provisioner "local-exec" { command = "sleep ${var.hold}" }
}
`

var demoRoots = []demoRoot{
	{name: "network", config: demoNetwork, byHand: [][]string{nil}, planned: true},
	{name: "dns", config: demoDNS, byHand: [][]string{nil, {"-var", "ttl=30"}}, planned: true},
	{name: "edge", config: demoEdge, byHand: [][]string{nil},
		edited: demoEdge + `resource "terraform_data" "cdn" { input = { origin = "edge-prod", cache = "1h" } }` + "\n", planned: true},
	{name: "peering", config: demoPeering, byHand: [][]string{nil}},
}

// Roots are the demo's root modules, made the first time with tofu; the
// list also when making them failed (their reads then say what is wrong).
func Roots(ctx context.Context, stateDir string, tofu *rootmod.Tofu) ([]rootmod.Root, error) {
	dir := rootsDir(stateDir)
	done := filepath.Join(dir, ".made")
	var roots []rootmod.Root
	for _, d := range demoRoots {
		roots = append(roots, rootmod.Root{Name: d.name, Dir: filepath.Join(dir, d.name), Workspace: rootmod.DefaultWorkspace,
			Given: rootmod.GivenDemo, Cache: rootsCache(stateDir)})
	}
	if _, err := os.Stat(done); err == nil {
		return roots, nil
	}
	for _, d := range []string{dir, rootsCache(stateDir), pristineRoots(stateDir)} {
		if err := os.RemoveAll(d); err != nil {
			return roots, err
		}
	}
	for i, d := range demoRoots {
		if err := d.make(ctx, roots[i], tofu); err != nil {
			return roots, fmt.Errorf("the demo's root module %s: %w", d.name, err)
		}
	}
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		return roots, err
	}
	pristine := pristineRoots(stateDir)
	if err := copyTree(dir, filepath.Join(pristine, "roots")); err != nil {
		return roots, err
	}
	return roots, copyTree(rootsCache(stateDir), filepath.Join(pristine, "cache"))
}

// resetRoots puts the demo's root modules back as first made; none are
// made again until the next demo command when they never were.
func resetRoots(stateDir string) error {
	for _, d := range []string{rootsDir(stateDir), rootsCache(stateDir)} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	pristine := pristineRoots(stateDir)
	if _, err := os.Stat(pristine); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := copyTree(filepath.Join(pristine, "roots"), rootsDir(stateDir)); err != nil {
		return err
	}
	return copyTree(filepath.Join(pristine, "cache"), rootsCache(stateDir))
}

// copyTree copies the directory src to dst: files with their modes,
// symbolic links as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, info.Mode().Perm())
	})
}

func (d demoRoot) make(ctx context.Context, r rootmod.Root, tofu *rootmod.Tofu) error {
	if err := os.MkdirAll(r.Dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "main.tf"), []byte(d.config), 0o600); err != nil {
		return err
	}
	if err := byHand(ctx, tofu.Bin, r.Dir, "init", "-input=false", "-no-color"); err != nil {
		return err
	}
	for _, vars := range d.byHand {
		if err := byHand(ctx, tofu.Bin, r.Dir, append([]string{"apply", "-auto-approve", "-input=false", "-no-color"}, vars...)...); err != nil {
			return err
		}
	}
	if d.edited != "" {
		if err := os.WriteFile(filepath.Join(r.Dir, "main.tf"), []byte(d.edited), 0o600); err != nil {
			return err
		}
	}
	if d.planned {
		if _, err := tofu.Plan(ctx, r, "demo@driftdeck", 0, diff.Options{}); err != nil {
			return err
		}
	}
	return nil
}

// byHand runs tofu in a module as its user would, with its own .terraform.
func byHand(ctx context.Context, bin, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_IN_AUTOMATION=1", "TF_INPUT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tofu %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// HoldLock starts the apply of the demo's peering module that holds its
// state lock until ctx ends (then it is interrupted, and tofu lets the
// lock go); held is called once it holds it.
func HoldLock(ctx context.Context, stateDir string, tofu *rootmod.Tofu, held func()) error {
	r := rootmod.Root{Name: "peering", Dir: filepath.Join(rootsDir(stateDir), "peering"), Workspace: rootmod.DefaultWorkspace, Cache: rootsCache(stateDir)}
	cmd := exec.Command(tofu.Bin, "apply", "-auto-approve", "-input=false", "-no-color", "-var", "hold=86400", "-var", "peer=partner-vpc")
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "TF_IN_AUTOMATION=1", "TF_INPUT=0")
	// In a group of its own, ended as Ctrl-C in a terminal ends it: the
	// interrupt goes to the provisioner's sleep too, which tofu would leave
	// running for a day after the workbench quit.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	rootWork.Go(func() { _ = cmd.Wait(); close(exited) })
	rootWork.Go(func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		case <-exited:
		}
	})
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if l, _, err := tofu.ReadLock(ctx, r); err == nil && l != nil {
			held()
			return nil
		}
		select {
		case <-exited:
			return errors.New("the demo's long apply ended at once")
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
	}
	return errors.New("the demo's long apply did not take the lock within a minute")
}
