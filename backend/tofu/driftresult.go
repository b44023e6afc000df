package tofu

import (
	"fmt"
	"regexp"
	"strings"
)

// tofu-controller keeps no file of the plan it makes to detect drift: the
// Ready condition (reason DriftDetected, cut at 20,000 characters) holds
// `tofu show -no-color` of it, resource by resource.

// PlanHeader matches a resource's header line in `tofu show -no-color`:
// "  # terraform_data.x will be updated in-place"; a second comment line
// ("  # (because ...)") is not a header.
var PlanHeader = regexp.MustCompile(`^  # ([^(\s].*?) (will be|must be|has been|has|is|will no longer) ?(.*)$`)

var planSummary = regexp.MustCompile(`^(Plan: \d+ to add.*|No changes\..*)$`)

// DriftSummary says in one line what a drift detection's plan text holds:
// tofu's own count and the first resources, "" when the text holds no
// resource (an older controller's or a backendless run's message).
func DriftSummary(text string) string {
	var addrs []string
	seen := map[string]bool{}
	count := ""
	for _, l := range strings.Split(text, "\n") {
		if m := PlanHeader.FindStringSubmatch(l); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			a := m[1]
			if m[2] == "has" || m[2] == "has been" { // the note of what changed outside, before the plan
				a += " (changed outside)"
			}
			addrs = append(addrs, a)
		} else if t := strings.TrimSpace(l); planSummary.MatchString(t) {
			count = t
		}
	}
	if len(addrs) == 0 {
		return ""
	}
	shown := addrs[:min(len(addrs), 3)]
	out := strings.Join(shown, ", ")
	if more := len(addrs) - len(shown); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	if count == "" {
		return out
	}
	return count + " " + out
}
