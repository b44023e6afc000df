package pulumirun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindCLIPrefersTheEnvironment(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pulumi")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(CLIEnv, bin)
	got, err := FindCLI()
	if err != nil || got != bin {
		t.Fatalf("FindCLI() = %q, %v; want %q", got, err, bin)
	}
	t.Setenv(CLIEnv, filepath.Join(t.TempDir(), "missing"))
	if _, err := FindCLI(); err == nil {
		t.Fatal("FindCLI accepted a missing binary named by " + CLIEnv)
	}
}

func TestFindCLIWithoutOneSaysHowToGetIt(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(CLIEnv, "")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", cache)
	_, err := FindCLI()
	if err == nil {
		t.Fatal("FindCLI found a pulumi CLI with none anywhere")
	}
	for _, how := range []string{"pulumi.com/docs/iac/download-install", CLIEnv, "`make tools`", filepath.Join(cache, "driftdeck", "tools")} {
		if !strings.Contains(err.Error(), how) {
			t.Errorf("FindCLI's error %q does not say %q", err, how)
		}
	}

	// What make tools builds is found there.
	bin := filepath.Join(cache, "driftdeck", "tools", "pulumi-v3.274.1-0123456789ab", "pulumi")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := FindCLI(); err != nil || got != bin {
		t.Errorf("FindCLI() = %q, %v; want the one make tools built, %s", got, err, bin)
	}
}
