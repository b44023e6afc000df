package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The helpers hold these so that driftdeck does not load them at every
// start (ADR 0006, ADR 0008, ADR 0012): linking one again costs every user
// megabytes of resident memory.
var helperOnly = []string{
	"github.com/pulumi/pulumi/sdk/v3/",
	"gocloud.dev/blob/s3blob",
	"gocloud.dev/blob/gcsblob",
	"gocloud.dev/blob/azureblob",
	"github.com/go-git/",
	"sigs.k8s.io/kustomize/",
}

func TestDriftdeckLinksNoSDKThatAHelperHolds(t *testing.T) {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range helperOnly {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("driftdeck links %s, which belongs in a helper", pkg)
			}
		}
	}
}
