// Command driftdeck-render checks out and renders GitOps sources for
// driftdeck's local diffs (Argo CD directory and kustomization sources, Flux
// Kustomizations) and clones Pulumi programs. It keeps git and kustomize
// out of driftdeck's own memory; it is not meant to be run by hand.
package main

import (
	"os"

	"github.com/driftdeck/driftdeck/backend/localrender/engine"
)

func main() { os.Exit(engine.Main(os.Args)) }
