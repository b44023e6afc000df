package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
)

// errNotConfirmed is the answer no: nothing was written.
var errNotConfirmed = errors.New("not confirmed: nothing written")

// mustAsk says whether a destructive command asks before it writes: not
// with --yes, and not in a dry run, which writes nothing (as kubectl's).
func mustAsk(g *globals, yes bool) bool { return !yes && !g.dryRun }

// confirmable refuses up front, before anything is read or written, a
// destructive command that would have to ask but has no terminal to ask on.
func confirmable(g *globals, yes bool, what string) error {
	if !mustAsk(g, yes) || g.inIsTerminal() {
		return nil
	}
	return usageError(fmt.Errorf("%s writes, and there is no terminal to confirm on: pass --yes to go ahead without asking (--dry-run shows what would be written)", what))
}

// confirm asks on the terminal; anything but yes is errNotConfirmed.
func confirm(g *globals, question string) error {
	if !g.inIsTerminal() {
		return usageError(errors.New("no terminal to confirm on: pass --yes"))
	}
	fmt.Fprintf(g.errOut, "%s [y/N] ", question)
	line, _ := bufio.NewReader(g.in).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return errNotConfirmed
	}
	return nil
}
