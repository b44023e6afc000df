package localrender

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// CloneDir is where the helper keeps its bare clone of repoURL in the clone
// cache cacheDir. It is named after a hash of the URL, since the URL may
// carry credentials.
func CloneDir(cacheDir, repoURL string) string {
	sum := sha256.Sum256([]byte(repoURL))
	return filepath.Join(cacheDir, "repos", hex.EncodeToString(sum[:12]))
}
