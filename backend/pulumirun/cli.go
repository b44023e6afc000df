package pulumirun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
)

// CLIEnv names the variable that points driftdeck at a pulumi binary.
const CLIEnv = "DRIFTDECK_PULUMI"

// FindCLI locates the pulumi binary: $DRIFTDECK_PULUMI, then pulumi on PATH,
// then the newest one the project's build script cached
// (<user cache>/driftdeck/tools/pulumi-*/pulumi).
func FindCLI() (string, error) {
	if p := os.Getenv(CLIEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", CLIEnv, err)
		}
		return p, nil
	}
	// The user's own pulumi comes with the language plugins their programs
	// need; the build cache's is the test suite's.
	if p, err := exec.LookPath("pulumi"); err == nil {
		return p, nil
	}
	if cache, err := os.UserCacheDir(); err == nil {
		found, _ := filepath.Glob(filepath.Join(cache, "driftdeck", "tools", "pulumi-*", "pulumi"))
		sort.Strings(found)
		if len(found) > 0 {
			return found[len(found)-1], nil
		}
	}
	return "", errors.New("no pulumi CLI found: set " + CLIEnv + " or put pulumi on PATH")
}

var commands sync.Map // binary path -> auto.PulumiCommand

// command returns the Automation API's handle on the binary at bin (pulumi
// on PATH when bin is ""). The handle runs `pulumi version` once, so it is
// kept per binary.
func command(bin string) (auto.PulumiCommand, error) {
	if c, ok := commands.Load(bin); ok {
		return c.(auto.PulumiCommand), nil
	}
	var opts *auto.PulumiCommandOptions
	if bin != "" {
		root, err := commandRoot(bin)
		if err != nil {
			return nil, err
		}
		opts = &auto.PulumiCommandOptions{Root: root}
	}
	c, err := auto.NewPulumiCommand(opts)
	if err != nil {
		return nil, err
	}
	commands.Store(bin, c)
	return c, nil
}

// commandRoot returns a directory whose bin/pulumi is bin: the Automation
// API only runs <root>/bin/pulumi. A binary that is not already in such a
// layout gets a symlink under the user cache dir.
func commandRoot(bin string) (string, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if filepath.Base(abs) == "pulumi" && filepath.Base(filepath.Dir(abs)) == "bin" {
		return filepath.Dir(filepath.Dir(abs)), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	root := filepath.Join(cache, "driftdeck", "pulumi-roots", hex.EncodeToString(sum[:6]))
	link := filepath.Join(root, "bin", "pulumi")
	if target, err := os.Readlink(link); err == nil && target == abs {
		return root, nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d", link, os.Getpid())
	_ = os.Remove(tmp)
	if err := os.Symlink(abs, tmp); err != nil {
		return "", err
	}
	return root, os.Rename(tmp, link)
}
