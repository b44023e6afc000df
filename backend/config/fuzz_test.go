package config

import (
	"os"
	"path/filepath"
	"testing"
)

// The config file is the user's, edited by hand: any bytes load or give an
// error naming the file, never a panic, and what loads yields thresholds.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{"", "thresholds:\n  running: 10m\n", "thresholds: {running: -1s}\n", "policies:\n- name: x\n", "{", "\x00\xff", "a: &a [*a]\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(path)
		if err != nil {
			return
		}
		_ = c.StuckThresholds()
	})
}
