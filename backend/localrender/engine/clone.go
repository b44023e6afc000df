package engine

import (
	"context"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v6"
	"github.com/go-git/go-git/v6/plumbing"
	"github.com/go-git/go-git/v6/plumbing/client"
	"github.com/go-git/go-git/v6/plumbing/transport/http"

	"github.com/driftdeck/driftdeck/backend/localrender"
)

// clone clones src.Repo into src.Dest: at src.Commit in a full clone (the
// commit may be on no branch's tip), else the tip of src.Branch shallowly.
func clone(ctx context.Context, src localrender.CloneSource) error {
	opts := &git.CloneOptions{URL: src.Repo, RemoteName: "origin"}
	if src.Token != "" {
		opts.ClientOptions = []client.Option{client.WithHTTPAuth(&http.BasicAuth{Username: "git", Password: src.Token})}
	}
	if src.Commit == "" {
		opts.Depth, opts.SingleBranch, opts.Tags = 1, true, git.NoTags
		if src.Branch != "" {
			opts.ReferenceName = plumbing.NewBranchReferenceName(strings.TrimPrefix(src.Branch, "refs/heads/"))
		}
	} else {
		opts.NoCheckout = true
	}
	repo, err := git.PlainCloneContext(ctx, src.Dest, opts)
	if err != nil {
		return fmt.Errorf("clone %s: %w", localrender.RedactURL(src.Repo), err)
	}
	if src.Commit != "" {
		wt, err := repo.Worktree()
		if err != nil {
			return err
		}
		if err := wt.Checkout(&git.CheckoutOptions{Hash: plumbing.NewHash(src.Commit), Force: true}); err != nil {
			return fmt.Errorf("check out %s: %w", src.Commit, err)
		}
	}
	return nil
}
