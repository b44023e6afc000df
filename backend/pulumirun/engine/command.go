package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
)

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
