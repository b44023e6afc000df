package tfplan

import (
	"regexp"
	"strings"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// The lines of `tofu show -no-color` (and `terraform show`) read here.
var (
	// "  # terraform_data.x will be updated in-place"
	headerLine = tofu.PlanHeader
	// "  ~ resource "terraform_data" "x" {", "-/+ resource ...", " <= data ..."
	blockLine    = regexp.MustCompile(`^\s*(\S+) (resource|data) "[^"]*" "[^"]*" \{$`)
	summaryLine  = regexp.MustCompile(`^(Plan: \d+ to add.*|No changes\..*)$`)
	actionsStart = regexp.MustCompile(`will perform the following actions:$`)
)

// ParseHuman reads a human-readable plan (`tofu show -no-color`, as
// tofu-controller stores it with storeReadablePlan: human). Each resource
// block becomes a diff of its before and after text, rebuilt from the
// block's ~/+/- markers; values tofu hides stay hidden.
func ParseHuman(text string, opts diff.Options) (*Plan, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	p := &Plan{Format: "human"}
	actions := false // past "will perform the following actions:"
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case actionsStart.MatchString(l):
			actions = true
		case summaryLine.MatchString(strings.TrimSpace(l)):
			p.Summary = strings.TrimSpace(l)
		case l == "Changes to Outputs:":
			var body []string
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
				body = append(body, lines[i])
			}
			p.Resources = append(p.Resources, humanResource(OutputsAddress, Update, "# Changes to Outputs", body, opts))
		case headerLine.MatchString(l):
			m := headerLine.FindStringSubmatch(l)
			head := []string{strings.TrimSpace(l)}
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  # (") {
				i++
				head = append(head, strings.TrimSpace(lines[i]))
			}
			// The block follows its header; it ends at the first "    }".
			var body []string
			if i+1 < len(lines) && blockLine.MatchString(lines[i+1]) {
				for i+1 < len(lines) {
					i++
					body = append(body, lines[i])
					if lines[i] == "    }" {
						break
					}
				}
			}
			a := humanAction(m[2] + " " + m[3])
			if !actions || a == "" {
				// Changed outside OpenTofu: told, not planned.
				p.Warnings = append(p.Warnings, m[1]+" "+m[2]+" "+m[3]+" outside OpenTofu since the last apply")
				continue
			}
			p.Resources = append(p.Resources, humanResource(m[1], a, strings.Join(head, "\n"), body, opts))
		}
	}
	p.Report = report(p.Resources)
	if p.Summary == "" {
		p.Summary = summary(p.Resources)
	}
	return p, nil
}

// humanAction reads the verb of a header; "" for a change made outside
// OpenTofu ("has changed", "has been deleted").
func humanAction(verb string) Action {
	switch {
	case strings.HasPrefix(verb, "will be created"):
		return Create
	case strings.HasPrefix(verb, "will be updated"):
		return Update
	case strings.HasPrefix(verb, "must be replaced"), strings.HasPrefix(verb, "will be replaced"):
		return Replace
	case strings.HasPrefix(verb, "will be destroyed"):
		return Destroy
	case strings.HasPrefix(verb, "will be read"):
		return Read
	case strings.HasPrefix(verb, "has changed"), strings.HasPrefix(verb, "has been deleted"):
		return ""
	}
	return Other
}

func humanResource(address string, a Action, head string, body []string, opts diff.Options) Resource {
	before, after, fields := sides(body)
	d := &diff.ObjectDiff{Key: keyOf(address, a), Change: changeOf(a), Live: before, Desired: after, Fields: fields}
	switch a {
	case Create:
		d.Live = ""
	case Destroy:
		d.Desired = ""
	}
	if d.Change != diff.Modified {
		d.Fields = nil
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = diff.DefaultTimeout
	}
	d.Text = diff.Text(d.Live, d.Desired, timeout)
	return Resource{Address: address, Action: a, Header: head, Diff: d}
}

// markers are the change symbols of a plan line, longest first.
var markers = []string{"-/+", "+/-", "<=", "~", "+", "-"}

// open is a block (or heredoc) still open while rebuilding the sides.
type open struct {
	marker   string
	attr     string // the attribute it is the value of
	afterIdx int    // its line on the after side
	heredoc  string // the closing word of a heredoc
}

// sides rebuilds a block's before and after texts from its markers: "+"
// lines are only after, "-" only before, "a = x -> y" is "a = x" before and
// "a = y" after; a block closed by "} -> y" became y. Top-level changed
// attributes are returned as fields.
func sides(body []string) (before, after string, fields []diff.FieldChange) {
	var b, a []string
	var stack []open
	for _, line := range body {
		n := len(line) - len(strings.TrimLeft(line, " "))
		rest := line[n:]
		marker := ""
		for _, m := range markers {
			if strings.HasPrefix(rest, m+" ") {
				marker, rest = m, rest[len(m)+1:]
				n += len(m) + 1
				break
			}
		}
		ind := strings.Repeat(" ", n)
		text := ind + rest
		trimmed := strings.TrimSpace(rest)
		inHeredoc := len(stack) > 0 && stack[len(stack)-1].heredoc != ""

		// A closer takes the marker of the block it closes.
		if len(stack) > 0 && marker == "" && isCloser(trimmed, stack[len(stack)-1]) {
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			closer, became, turned := strings.Cut(text, " -> ")
			switch {
			case o.marker == "+" || o.marker == "<=":
				a = append(a, text)
			case o.marker == "-":
				b = append(b, strings.TrimSuffix(text, " -> null"))
			case turned:
				b = append(b, closer)
				a[o.afterIdx] = strings.Repeat(" ", indentOf(a[o.afterIdx])) + o.attr + " = " + became
			default:
				b, a = append(b, text), append(a, text)
			}
			continue
		}
		if len(stack) == 1 && marker != "" && !inHeredoc {
			fields = append(fields, diff.FieldChange{Path: attrName(rest), Change: markerChange(marker)})
		}
		switch marker {
		case "+", "<=":
			a = append(a, text)
		case "-":
			b = append(b, strings.TrimSuffix(text, " -> null"))
		case "~", "-/+", "+/-":
			if old, nw, ok := strings.Cut(rest, " -> "); ok && !opens(rest) {
				b = append(b, ind+old)
				a = append(a, ind+attrPrefix(rest)+nw)
			} else if strings.HasSuffix(rest, "= "+Sensitive) {
				// tofu marks a changed sensitive value with ~ alone: say so.
				b = append(b, text)
				a = append(a, strings.TrimSuffix(text, Sensitive)+SensitiveChanged)
			} else {
				b, a = append(b, text), append(a, text)
			}
		default:
			b, a = append(b, text), append(a, text)
		}
		if inHeredoc {
			continue
		}
		if word, ok := heredocStart(trimmed); ok {
			stack = append(stack, open{marker: marker, attr: attrName(rest), afterIdx: len(a) - 1, heredoc: word})
		} else if opens(trimmed) {
			stack = append(stack, open{marker: marker, attr: attrName(rest), afterIdx: len(a) - 1})
		}
	}
	return dedent(b), dedent(a), fields
}

func opens(s string) bool {
	return strings.HasSuffix(s, "{") || strings.HasSuffix(s, "[") || strings.HasSuffix(s, "(")
}

func isCloser(trimmed string, o open) bool {
	if o.heredoc != "" {
		return trimmed == o.heredoc
	}
	return strings.HasPrefix(trimmed, "}") || strings.HasPrefix(trimmed, "]") || strings.HasPrefix(trimmed, ")")
}

var heredoc = regexp.MustCompile(`<<-?([A-Z]+)$`)

func heredocStart(s string) (string, bool) {
	m := heredoc.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// attrName is the attribute (or block type) a plan line is about.
func attrName(rest string) string {
	name, _, ok := strings.Cut(rest, " =")
	if !ok {
		name, _, _ = strings.Cut(rest, " {")
	}
	return strings.TrimSpace(name)
}

// attrPrefix is "name   = " of an "a = x -> y" line, spacing kept.
func attrPrefix(rest string) string {
	if i := strings.Index(rest, "= "); i >= 0 {
		return rest[:i+2]
	}
	return ""
}

func markerChange(m string) diff.Change {
	switch m {
	case "+", "<=":
		return diff.Added
	case "-":
		return diff.Removed
	}
	return diff.Modified
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// dedent removes the indentation every line shares and ends the text with a
// newline, as the diff engine's texts do.
func dedent(lines []string) string {
	least := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := indentOf(l); least < 0 || n < least {
			least = n
		}
	}
	if least < 0 {
		return ""
	}
	var sb strings.Builder
	for _, l := range lines {
		if len(l) >= least {
			l = l[least:]
		}
		sb.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	return sb.String()
}
