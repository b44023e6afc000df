// Command driftdeck-render checks out and renders GitOps sources for
// driftdeck's local diffs (Argo CD directory, kustomization and Helm
// sources, Flux Kustomizations and HelmReleases' charts) and clones Pulumi
// programs. It keeps git, kustomize and helm out of driftdeck's own memory;
// it is not meant to be run by hand.
package main

import (
	"os"

	"github.com/driftdeck/driftdeck/backend/localrender/engine"
)

func main() { os.Exit(engine.Main(os.Args)) }
