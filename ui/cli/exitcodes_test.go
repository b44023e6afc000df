package cli

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/writeguard"
)

func TestUsageErrorsExit2(t *testing.T) {
	isolate(t)
	good := writeFile(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: prod, context: {cluster: c, user: u}}]
current-context: prod
`)
	broken := writeFile(t, "broken", "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \n")
	for name, c := range map[string]struct {
		args []string
		says string
	}{
		"missing argument":   {[]string{"pause", "--reason", "x", "--yes"}, "name the units to pause"},
		"too many arguments": {[]string{"diff", "argocd/a/b", "argocd/a/c"}, "accepts 1 arg"},
		"unknown command":    {[]string{"frobnicate"}, `unknown command "frobnicate"`},
		"unknown flag":       {[]string{"status", "--bogus"}, "unknown flag: --bogus"},
		"bad flag value":     {[]string{"status", "-o", "yaml"}, `--output "yaml"`},
		"bad unit name":      {[]string{"refresh", "guestbook", "--kubeconfig", good}, "want <engine>/<namespace>/<name>"},
		"no kubeconfig":      {[]string{"status"}, "no kubeconfig found"},
		"missing kubeconfig": {[]string{"status", "--kubeconfig", "/nonexistent/kubeconfig"}, "/nonexistent/kubeconfig"},
		"broken kubeconfig":  {[]string{"status", "--kubeconfig", broken}, "kubeconfig"},
		"broken, for a write": {[]string{"pause", "argocd/a/b", "--reason", "x", "--yes", "--kubeconfig", broken},
			"kubeconfig"},
		"unknown context": {[]string{"status", "--kubeconfig", good, "--context", "staging"}, `context "staging" not found`},
		"unknown context, for a write": {[]string{"refresh", "argocd/a/b", "--kubeconfig", good, "--context", "staging"},
			`context "staging" not found`},
		"one-unit flag in bulk": {[]string{"pause", "argocd/a/b", "argocd/a/c", "--self-heal-only", "--reason", "x", "--yes", "--kubeconfig", good},
			"are for one unit"},
		"reason missing": {[]string{"pause", "argocd/a/b", "--yes", "--kubeconfig", good}, "--reason is required"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := run(t, c.args...)
			if code != exitUsage || !strings.Contains(stderr, c.says) {
				t.Errorf("driftdeck %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(c.args, " "), code, stderr, c.says)
			}
		})
	}
}

func TestEveryHelpListsTheExitCodes(t *testing.T) {
	isolate(t)
	for _, cmd := range [][]string{{}, {"status"}, {"diff"}, {"pause"}, {"refresh"}, {"freeze"}, {"unlock"}, {"preview"}, {"state"}, {"version"}} {
		code, out, _ := run(t, append(cmd, "--help")...)
		if code != 0 || !strings.Contains(out, "3  cluster unreachable") || !strings.Contains(out, "6  refused") {
			t.Errorf("driftdeck %s --help: exit %d, no exit-code table in:\n%s", strings.Join(cmd, " "), code, out)
		}
	}
}

func TestVersionFlagAndCommandPrintTheStampedVersionAndGo(t *testing.T) {
	isolate(t)
	before := Version
	Version = "v1.2.3"
	defer func() { Version = before }()
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := run(t, args...)
		if code != 0 || !strings.Contains(out, "driftdeck v1.2.3") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("driftdeck %s: exit %d, %q; want the version and %s", args[0], code, out, runtime.Version())
		}
	}
}

// A write whose outcome is unknown (its answer lost, no read back) exits as
// unreachable, whatever the lost connection's error looked like.
func TestAWriteOfUnknownOutcomeExitsUnreachable(t *testing.T) {
	err := &writeguard.Unknown{Err: errors.Join(errors.New("writing argocd/ns/web"), io.ErrUnexpectedEOF)}
	if got := exitCode(err); got != exitUnreachable {
		t.Fatalf("exit code %d, want %d", got, exitUnreachable)
	}
}
