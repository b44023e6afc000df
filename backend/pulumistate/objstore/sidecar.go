package objstore

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Sidecars is what a file:// bucket adds to Store. gocloud's file driver
// keeps each object's attributes in a sidecar file, <object>.attrs, which
// it truncates and then writes in place. A writer killed between the two
// (a pulumi CLI killed while saving its checkpoint) leaves the sidecar
// empty or cut short beside a whole object; from then on every read of the
// object through gocloud, the pulumi CLI's included, fails with a bare
// "EOF". driftdeck needs no attributes: it reads such an object anyway,
// says which sidecars are torn, and removes them only as a planned repair
// (without a sidecar the driver reads the object with default attributes).
type Sidecars interface {
	// TornSidecar returns the path of key's sidecar and whether it is torn.
	TornSidecar(key string) (path string, torn bool)
	// RemoveTornSidecar removes key's sidecar if it is still torn.
	RemoveTornSidecar(key string) error
}

// fileDir is the directory of a file:// bucket URL, read as gocloud's file
// driver reads it; "" for any other scheme.
func fileDir(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if u.Host == "." {
		p = strings.TrimPrefix(p, "/")
	}
	return filepath.FromSlash(p)
}

// objectPath is where the file driver keeps key, for the keys it stores
// unescaped (every key of a Pulumi state); false for any other.
func (s bucket) objectPath(key string) (string, bool) {
	if s.dir == "" || !filepath.IsLocal(key) || strings.Contains(key, "//") || strings.HasSuffix(key, "/") ||
		strings.HasSuffix(key, ".attrs") || strings.ContainsFunc(key, func(r rune) bool { return r < 32 || r == '\\' }) {
		return "", false
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), true
}

func (s bucket) TornSidecar(key string) (string, bool) {
	p, ok := s.objectPath(key)
	if !ok {
		return "", false
	}
	body, err := os.ReadFile(p + ".attrs")
	return p + ".attrs", err == nil && !json.Valid(body)
}

func (s bucket) RemoveTornSidecar(key string) error {
	p, torn := s.TornSidecar(key)
	if !torn {
		return nil
	}
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing the torn sidecar %s: %w", p, err)
	}
	return nil
}

// readPastTornSidecar reads key's bytes straight from its file when the
// driver could not because key's sidecar is torn.
func (s bucket) readPastTornSidecar(key string) ([]byte, bool) {
	if _, torn := s.TornSidecar(key); !torn {
		return nil, false
	}
	p, _ := s.objectPath(key)
	body, err := os.ReadFile(p)
	return body, err == nil
}
