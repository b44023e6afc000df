package pulumirun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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
	cached := filepath.Join("~", ".cache", "driftdeck", "tools")
	if cache, err := os.UserCacheDir(); err == nil {
		cached = filepath.Join(cache, "driftdeck", "tools")
		found, _ := filepath.Glob(filepath.Join(cached, "pulumi-*", "pulumi"))
		sort.Strings(found)
		if len(found) > 0 {
			return found[len(found)-1], nil
		}
	}
	return "", errors.New("no pulumi CLI found: install it (https://www.pulumi.com/docs/iac/download-install/) and put it on PATH, " +
		"or set " + CLIEnv + " to its path; in a driftdeck checkout `make tools` builds one into " + cached)
}
