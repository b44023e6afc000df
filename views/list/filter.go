package list

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Filter is what the user typed after "/": a case-insensitive regular
// expression (plain words work as substrings), "!" in front inverts it. Text
// that is not a valid expression is matched literally.
type Filter struct {
	Text   string
	re     *regexp.Regexp
	invert bool
	// plain is the lower-cased text when it has no expression syntax:
	// matched with a substring search, ten times faster than the expression;
	// anyOf holds the words of a plain alternation ("stuck|failed").
	plain string
	anyOf []string
}

// ParseFilter compiles a filter; it never fails.
func ParseFilter(text string) Filter {
	f := Filter{Text: text}
	body := text
	if strings.HasPrefix(body, "!") {
		f.invert, body = true, body[1:]
	}
	if body == "" {
		return f
	}
	// The haystack is lower case already: a lower-cased pattern matches it
	// several times faster than (?i). Escapes (\S, \W) change meaning with
	// case, so patterns with them keep (?i).
	// (?m): ^ and $ anchor to each field of the haystack.
	pattern := "(?mi)" + body
	if !strings.Contains(body, `\`) {
		pattern = "(?m)" + strings.ToLower(body)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(body))
	}
	f.re = re
	if regexp.QuoteMeta(body) == body {
		f.plain = strings.ToLower(body)
	} else if words := strings.Split(strings.ToLower(body), "|"); len(words) > 1 {
		for _, w := range words {
			if w == "" || regexp.QuoteMeta(w) != w {
				return f
			}
		}
		f.anyOf = words
	}
	return f
}

// Active reports whether the filter hides anything.
func (f Filter) Active() bool { return f.re != nil }

// Match tests the text a unit is searched by.
func (f Filter) Match(haystack string) bool {
	switch {
	case f.re == nil:
		return true
	case f.plain != "":
		return strings.Contains(haystack, f.plain) != f.invert
	case f.anyOf != nil:
		for _, w := range f.anyOf {
			if strings.Contains(haystack, w) {
				return !f.invert
			}
		}
		return f.invert
	}
	return f.re.MatchString(haystack) != f.invert
}

// narrows reports whether every unit f matches is also matched by prev, so
// that f needs to search only what prev shows (typing more of a word).
func (f Filter) narrows(prev Filter) bool {
	return prev.plain != "" && f.plain != "" && !f.invert && !prev.invert && strings.Contains(f.plain, prev.plain)
}

// Scope narrows the list the way ":" commands do.
type Scope struct {
	Engine model.Engine // "" for all
	// Family narrows to several engines at once (see Families); it is used
	// instead of Engine, never with it.
	Family    string
	Namespace string
	Context   string
	State     string // "stuck", "paused", ... see ScopeStates
}

// Families are the engine groups a scope can name: "flux" is the Flux
// toolkit's own kinds (tofu-controller's Terraforms have :terraform).
var Families = map[string][]model.Engine{
	"flux": {model.EngineKustomization, model.EngineHelmRelease},
}

// ScopeStates are the words :<state> accepts.
var ScopeStates = []string{"stuck", "failed", "running", "awaiting", "blocked", "drifted", "degraded", "paused", "unreadable"}

// ValidState reports whether s is one of ScopeStates.
func ValidState(s string) error {
	for _, w := range ScopeStates {
		if s == w {
			return nil
		}
	}
	return fmt.Errorf("unknown state %q (want %s)", s, strings.Join(ScopeStates, ", "))
}

// Contains reports whether a unit is in the scope.
func (s Scope) Contains(u *model.Unit) bool {
	if s.Engine != "" && u.Key.Engine != s.Engine {
		return false
	}
	if s.Family != "" && !slices.Contains(Families[s.Family], u.Key.Engine) {
		return false
	}
	if s.Namespace != "" && u.Key.Namespace != s.Namespace {
		return false
	}
	if s.Context != "" && u.Key.Context != s.Context {
		return false
	}
	switch s.State {
	case "":
		return true
	case "stuck":
		return u.Run == model.Stuck
	case "failed":
		return u.Run == model.Failed
	case "running":
		return u.Run == model.Running
	case "awaiting":
		return u.Run == model.AwaitingApproval
	case "blocked":
		return u.Run == model.BlockedByWindow
	case "drifted":
		return u.Sync == model.Drifted
	case "degraded":
		return u.Health == model.Degraded
	case "paused":
		return u.Automation == model.Paused || u.Pause != nil || u.Automation == model.Suspended
	case "unreadable":
		return len(u.ReadErrors) > 0
	}
	return true
}

// Describe renders the scope for the header.
func (s Scope) Describe() string {
	var parts []string
	if s.Engine != "" {
		parts = append(parts, string(s.Engine))
	}
	if s.Family != "" {
		parts = append(parts, s.Family)
	}
	if s.Context != "" {
		parts = append(parts, "ctx "+s.Context)
	}
	if s.Namespace != "" {
		parts = append(parts, "ns "+s.Namespace)
	}
	if s.State != "" {
		parts = append(parts, s.State)
	}
	return strings.Join(parts, " · ")
}

// FilterFields name what a filter searches, for the prompt and the help.
const FilterFields = "name, namespace, engine/namespace/name, context, states, reason, project, owner, revisions"

// haystack is the text a filter searches in a unit: one field a line, the
// name first, so that ^ and $ anchor to a field ("api$" finds the names
// ending in api) instead of to text the row does not show.
func haystack(u *model.Unit) string {
	return strings.ToLower(strings.Join([]string{
		u.Key.Name, u.Key.Namespace, string(u.Key.Engine) + "/" + u.Key.Namespace + "/" + u.Key.Name, EngineLabel(u.Key.Engine), u.Key.Context,
		u.Sync.String(), u.Health.String(), u.Automation.String(), u.Run.String(),
		u.Project, u.Owner, u.Reason(), u.Desired, u.Applied,
	}, "\n"))
}
