package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// isolate points driftdeck's config, audit log and kubeconfig lookup at
// empty temporary places, as on a fresh machine.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", home+"/config")
	t.Setenv("XDG_STATE_HOME", home+"/state")
}

// run is driftdeck with stdin that is not a terminal (a script, CI).
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// runOnTerminal is driftdeck with stdout on a pseudo-terminal of the given
// width; it returns what the terminal received.
func runOnTerminal(t *testing.T, cols int, args ...string) (code int, screen, stderr string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, ptmx) // ends with EIO once the terminal side is closed
		got <- b.String()
	}()
	var errOut bytes.Buffer
	code = Main(args, strings.NewReader(""), tty, &errOut)
	tty.Close()
	select {
	case s := <-got:
		return code, strings.ReplaceAll(s, "\r\n", "\n"), errOut.String()
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal output did not end")
	}
	return
}

// writeFile writes a file in a temporary directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := t.TempDir() + "/" + name
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
