package argodiff

import "context"

// Checkout writes a repository's files at a revision (a branch, tag or
// commit; empty is the default branch) into dest, through the clone cache
// under cacheDir (empty: the user cache), and returns the commit's hash. The
// Flux diff reuses it for GitRepository sources.
func Checkout(ctx context.Context, cacheDir, repoURL, revision, dest string) (string, error) {
	if cacheDir == "" {
		var err error
		if cacheDir, err = defaultCacheDir(); err != nil {
			return "", err
		}
	}
	return repoCache{dir: cacheDir}.checkout(ctx, repoURL, revision, dest)
}

// BuildKustomization runs `kustomize build` on a directory, with
// kustomize's defaults (no plugins, no Helm), and returns its objects.
func BuildKustomization(dir string) ([]map[string]any, error) { return renderKustomize(dir) }

// RedactURL hides the credentials a repository URL may carry.
func RedactURL(repoURL string) string { return redactRepo(repoURL) }
