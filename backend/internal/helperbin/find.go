// Package helperbin locates driftdeck's helper executables: the programs
// that hold an SDK too large to load into driftdeck itself and that
// driftdeck runs only when a user needs it.
package helperbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Helper describes one helper executable.
type Helper struct {
	Name  string // the executable's name, also its cmd/ directory
	Env   string // the variable that names its path explicitly
	Holds string // what it holds, for errors: "the S3, ... storage drivers"
}

// Find returns h's path: $Env, else beside the running executable (where
// `make build` and `go install ./...` put it), else on PATH, else, when
// driftdeck runs through `go run` in its checkout, built from that checkout
// once into the user cache. why says what needs it, for the error.
func (h Helper) Find(why string) (string, error) {
	if p := os.Getenv(h.Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", h.Env, err)
		}
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			beside := filepath.Join(filepath.Dir(self), h.Name)
			if _, err := os.Stat(beside); err == nil {
				return beside, nil
			}
		}
	}
	if p, err := exec.LookPath(h.Name); err == nil {
		return p, nil
	}
	self, _ := os.Executable()
	wd, _ := os.Getwd()
	if cache, err := os.UserCacheDir(); err == nil && self != "" && wd != "" {
		if p, ok, err := h.fromCheckout(self, wd, cache); ok {
			return p, err
		}
	}
	return "", fmt.Errorf("%s needs the %s helper, which holds %s, "+
		"and it is neither beside driftdeck nor on PATH: install it with "+
		"`go install github.com/driftdeck/driftdeck/cmd/%s@latest`, or set %s to its path",
		why, h.Name, h.Holds, h.Name, h.Env)
}
