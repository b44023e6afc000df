package pulumirun

import (
	"os"
	"path/filepath"
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
