// Command driftdeck is a terminal workbench for the GitOps reconcilers of a
// cluster: Argo CD Applications and Pulumi operator Stacks in one live view,
// with the actions an on-call engineer needs, audited.
package main

import (
	"os"

	"github.com/driftdeck/driftdeck/ui/cli"
)

func main() {
	cli.TuneGC()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
