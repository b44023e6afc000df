package cli

import (
	"fmt"

	"github.com/driftdeck/driftdeck/backend/demo"
)

const demoResetHelp = `With --demo and no unit, reset forgets what the demo kept: every --demo
command starts from the state the one before it left (in the user's state
directory), and after a reset the next one starts from the demo's estate.`

// resetDemo forgets the demo's kept state.
func resetDemo(g *globals) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	had, err := demo.Reset(dir)
	if err != nil {
		return fmt.Errorf("resetting the demo: %w", err)
	}
	if had {
		fmt.Fprintln(g.out, "the demo is reset: the next --demo command starts from its estate")
	} else {
		fmt.Fprintln(g.out, "unchanged: the demo kept no state; the next --demo command starts from its estate")
	}
	return nil
}
