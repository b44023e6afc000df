package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A root module's path is read as the user wrote it: relative to the
// config file, or to the home directory with ~/; one without a path is
// refused, naming it.
func TestRootModulePathsAreReadFromWhereTheConfigSays(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("roots:\n  - path: infra/network\n  - path: ~/src/dns\n    workspaces: [default, staging]\nrootPlans:\n  every: 30s\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{c.Roots[0].Path, c.Roots[1].Path}; got[0] != filepath.Join(dir, "infra/network") || got[1] != filepath.Join(home, "src/dns") {
		t.Errorf("paths %q", got)
	}
	if err := c.RootPlans.CheckPlans(); err == nil || !strings.Contains(err.Error(), "rootPlans: every") {
		t.Errorf("a schedule under a minute: %v", err)
	}
	write("roots:\n  - name: network\n")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "roots[0]: no path (nor git)") {
		t.Errorf("a root without a path: %v", err)
	}
}
