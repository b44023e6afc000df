package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// dialogPosition is the line a scrolled confirmation shows ("lines 1-12 of 37").
var dialogPosition = regexp.MustCompile(`lines (\d+)-(\d+) of (\d+)`)

// dialogRows are the text lines inside the dialog's border on a screen.
func dialogRows(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		first, last := strings.Index(l, "│"), strings.LastIndex(l, "│")
		if first >= 0 && last > first {
			out = append(out, strings.TrimSpace(l[first+len("│"):last]))
		}
	}
	return out
}

// The pause of an ApplicationSet's child says more than 80x24 holds: its
// write scrolls to the last line of the ApplicationSet's patch, past the
// warning about the ApplicationSet, with the title, the buttons and the
// bottom border on the screen all the while, and says where it is.
func TestDemoPauseDialogOfAnApplicationSetChildScrollsToItsLastLine(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			term := start(t, size[0], size[1], nil, "--demo")
			term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
			term.send(`/argocd/cart\b` + "\r")
			term.waitFor(promptly, "argocd/cart ")
			term.send("p")
			s := term.waitFor(promptly, "Pause auto-sync and self-heal of argocd/argocd/cart", "Will write:", "[ Yes ]")
			title := dialogRows(s)[0]
			// body holds each line of the write block by its number, as the
			// screens show them while it scrolls.
			body := map[int]string{}
			total := 0
			for step := 0; ; step++ {
				rows := dialogRows(s)
				if !strings.Contains(s, "[ No ]") || !strings.Contains(s, "[ Yes ]") || !strings.Contains(s, "╰") || len(rows) == 0 || rows[0] != title {
					t.Fatalf("step %d: the title %q, the buttons or the bottom border left the screen:\n%s", step, title, s)
				}
				at := -1
				for i, r := range rows {
					if dialogPosition.MatchString(r) {
						at = i
					}
				}
				if at < 0 {
					if size[0] == 80 {
						t.Fatalf("at 80x24 the pause of an ApplicationSet child must scroll and say where it is:\n%s", s)
					}
					// It all fits: the block is what is between the title and the reason.
					for i, r := range rows[1:] {
						if strings.Contains(r, "Reason:") {
							break
						}
						body[i+1], total = r, i+1
					}
					break
				}
				m := dialogPosition.FindStringSubmatch(rows[at])
				from, to, n := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
				for i := from; i <= to; i++ {
					body[i] = rows[at-(to-i)-1]
				}
				total = n
				if to == n {
					break
				}
				if step > 2*n {
					t.Fatalf("pgdown did not reach line %d of %d:\n%s", n, n, s)
				}
				term.send("\x1b[6~") // pgdown
				s = term.waitUntil(promptly, fmt.Sprintf("the view to move past line %d", to), func(s string) bool {
					m := dialogPosition.FindStringSubmatch(s)
					return m != nil && atoi(t, m[2]) > to
				})
			}
			var block []string
			for i := 1; i <= total; i++ {
				l, ok := body[i]
				if !ok {
					t.Fatalf("line %d of %d was never shown", i, total)
				}
				block = append(block, l)
			}
			text := strings.Join(strings.Fields(strings.Join(block, " ")), "")
			for _, want := range []string{
				"regeneratesthisApplicationfromitstemplateandwouldrevertthepause",
				"applicationset/argocd/storefront-services",
				"spec.ignoreApplicationDifferences:+",
				"keepsthesefieldsofcartastheyarelive)",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("scrolled to its end, the dialog never showed %q:\n%s", want, strings.Join(block, "\n"))
				}
			}
			if !strings.HasSuffix(text, "keepsthesefieldsofcartastheyarelive)") {
				t.Errorf("the write block does not end with the ApplicationSet patch's last line:\n%s", strings.Join(block, "\n"))
			}
			term.send("\x1b")
			term.waitFor(promptly, "NAMESPACE/NAME")
		})
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
