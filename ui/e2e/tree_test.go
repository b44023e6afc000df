package e2e

import (
	"strings"
	"testing"
)

// The demo's ApplicationSet, app of apps and Stacks show as a tree in the
// real binary: t switches to it, a filter keeps the path to its matches,
// z opens a parent, t brings the flat list back.
func TestDemoTreeOfTheApplicationSetAndTheAppOfApps(t *testing.T) {
	term := start(t, 140, 40, nil, "--demo")
	term.waitFor(startup, "DEMO", "units", "NAMESPACE/NAME")
	term.send("t")
	term.waitFor(promptly, "tree  sort", "▸ argocd/platform-root", "14 below:", "▸ argocd/storefront-services", "11 below:")

	term.send("/")
	term.send("shipping")
	term.send("\r")
	term.waitUntil(promptly, "the filter to keep the ApplicationSet over its match", func(s string) bool {
		return strings.Contains(s, "▾ argocd/storefront-services") && strings.Contains(s, "    argocd/shipping") &&
			!strings.Contains(s, "argocd/cart ")
	})

	term.send("\x1b") // clear the filter: the cursor stays on the match, its parent open
	term.waitFor(promptly, "▾ argocd/storefront-services", "    argocd/cart")
	term.send("z") // on a child: folds its parent
	term.waitFor(promptly, "▸ argocd/storefront-services")
	term.send("t")
	term.waitUntil(promptly, "the flat list", func(s string) bool {
		return !strings.Contains(s, "▸") && !strings.Contains(s, "tree  sort")
	})
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
