// Command driftdeck-pulumi runs Pulumi previews and plan-bound applies for
// driftdeck through the Automation API, streaming the engine's steps back
// as they arrive. It keeps the Pulumi SDK out of driftdeck's own memory;
// it is not meant to be run by hand. Its only inline program is the one the
// demo ships (driftdeck --demo).
package main

import (
	"os"

	"github.com/driftdeck/driftdeck/backend/demo/program"
	"github.com/driftdeck/driftdeck/backend/pulumirun/engine"
)

func main() { os.Exit(engine.Main(os.Args, program.Programs)) }
