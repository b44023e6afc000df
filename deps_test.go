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
	"helm.sh/helm/",
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

// Screens see plain data: what a view draws comes to it as values, and the
// code that reads clusters or writes to them stays out of reach of every
// view, directly or through another package.
var viewsNeverReach = []string{
	"k8s.io/client-go/",
	"github.com/driftdeck/driftdeck/backend/actions",
	"github.com/driftdeck/driftdeck/backend/agent",
	"github.com/driftdeck/driftdeck/backend/kube",
}

func TestViewsSeePlainData(t *testing.T) {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps", "-f", `{{.ImportPath}}`, "./views/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range viewsNeverReach {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") || (strings.HasSuffix(banned, "/") && strings.HasPrefix(pkg, banned)) {
				t.Errorf("a view reaches %s: views take plain data (move the type it needs into a package that reads no cluster)", pkg)
			}
		}
	}
}
