package cli

import "github.com/driftdeck/driftdeck/backend/cmdline"

// origin is where this run finds its units, for the commands it prints for
// a person to run: they name it (--demo, or --kubeconfig and --context).
func (g *globals) origin() cmdline.Origin { return cmdline.NewOrigin(g.demo, g.kube.KubeConfig) }
