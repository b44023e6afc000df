package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, text string) string {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	c, err := Load(write(t, "theme: light\nkeys:\n  sync: [S]\nthresholds:\n  running: 20m\nstacks:\n  - unit: pulumi/infra/net\n    dir: /src/net\n    env: [AWS_PROFILE]\n"))
	if err != nil {
		t.Fatal(err)
	}
	th := c.StuckThresholds()
	if c.Theme != "light" || c.Keys["sync"][0] != "S" || th.Running != 20*time.Minute || th.Queued != 2*time.Minute || c.Stacks[0].Env[0] != "AWS_PROFILE" {
		t.Fatalf("%+v %+v", c, th)
	}
	if c, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err != nil || c.Theme != "" {
		t.Fatalf("a missing file is an empty config: %+v %v", c, err)
	}
	for _, bad := range []string{"thresholds:\n  running: soon\n", "colour: dark\n", "keys: [1, 2]\n"} {
		path := write(t, bad)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: want an error naming the file, got %v", bad, err)
		}
	}
}

func TestDestinationsMapServersAndNamesToContexts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("destinations:\n- server: https://prod.example.com:6443/\n  context: prod-admin\n- name: staging\n  context: stg\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	byServer, byName, err := c.DestinationContexts()
	if err != nil || byServer["https://prod.example.com:6443"] != "prod-admin" || byName["staging"] != "stg" {
		t.Fatalf("%v %v %v", byServer, byName, err)
	}
	c.Destinations = append(c.Destinations, Destination{Server: "https://x"})
	if _, _, err := c.DestinationContexts(); err == nil || !strings.Contains(err.Error(), "no context") {
		t.Errorf("an entry without a context must be an error: %v", err)
	}
}
