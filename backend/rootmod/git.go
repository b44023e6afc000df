package rootmod

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/driftdeck/driftdeck/backend/localrender"
)

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ensureSource checks out a root module from Git when it is not yet, or
// again (fresh, for a plan: the branch's newest commit), through the
// driftdeck-render helper; a module on disk is as it is.
func ensureSource(ctx context.Context, r Root, fresh bool) error {
	if r.Git == nil {
		return nil
	}
	if _, err := os.Stat(r.checkout); err == nil && !fresh {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(r.checkout), 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(r.checkout), ".checkout-")
	if err != nil {
		return err
	}
	src := localrender.CloneSource{Repo: r.Git.URL, Dest: tmp}
	if fullSHA.MatchString(r.Git.Ref) {
		src.Commit = r.Git.Ref
	} else {
		src.Branch = r.Git.Ref
	}
	if err := localrender.Clone(ctx, src); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("checking out %s: %w", localrender.RedactURL(r.Git.URL), err)
	}
	// Swapped whole: a read never sees half a checkout.
	old := r.checkout + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(r.checkout, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(tmp, r.checkout); err != nil {
		return err
	}
	_ = os.RemoveAll(old)
	if !hasConfig(r.Dir) {
		return fmt.Errorf("root module %s: no .tf or .tofu files in %s", localrender.RedactURL(r.Git.URL), r.Git.Dir)
	}
	return nil
}
