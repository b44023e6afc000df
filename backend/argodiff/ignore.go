package argodiff

import (
	"strconv"
	"strings"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// ignoreRule is one entry of spec.ignoreDifferences: fields Argo CD leaves
// out of the comparison for the objects it matches.
type ignoreRule struct {
	group, kind, name, namespace string
	pointers                     []string
}

// readIgnoreRules reads spec.ignoreDifferences. The local render applies JSON
// pointers; jq expressions and managed-fields managers need Argo CD itself,
// and a note says so.
func readIgnoreRules(r *objread.Reader) ([]ignoreRule, string) {
	var rules []ignoreRule
	var unsupported []string
	for _, e := range r.Objects("spec", "ignoreDifferences") {
		rule := ignoreRule{group: e.Str("group"), kind: e.Str("kind"), name: e.Str("name"), namespace: e.Str("namespace")}
		for _, p := range e.Slice("jsonPointers") {
			if s, ok := p.(string); ok {
				rule.pointers = append(rule.pointers, s)
			}
		}
		if len(e.Slice("jqPathExpressions")) > 0 {
			unsupported = append(unsupported, "jqPathExpressions")
		}
		if len(e.Slice("managedFieldsManagers")) > 0 {
			unsupported = append(unsupported, "managedFieldsManagers")
		}
		rules = append(rules, rule)
	}
	if len(unsupported) == 0 {
		return rules, ""
	}
	return rules, "spec.ignoreDifferences: " + strings.Join(unsupported, " and ") +
		" are not applied by the local render, so those fields may show as changed"
}

func (r ignoreRule) matches(k diff.ObjectKey) bool {
	return r.group == k.Group && r.kind == k.Kind &&
		(r.name == "" || r.name == k.Name) && (r.namespace == "" || r.namespace == k.Namespace)
}

// applyIgnoreRules removes the ignored fields from both sides of each pair.
func applyIgnoreRules(pairs []diff.Pair, rules []ignoreRule) {
	for _, p := range pairs {
		key := p.Key
		if key == (diff.ObjectKey{}) {
			if p.Desired != nil {
				key = diff.KeyOf(p.Desired)
			} else {
				key = diff.KeyOf(p.Live)
			}
		}
		for _, rule := range rules {
			if !rule.matches(key) {
				continue
			}
			for _, ptr := range rule.pointers {
				removePointer(p.Live, ptr)
				removePointer(p.Desired, ptr)
			}
		}
	}
}

// removePointer deletes the value a JSON pointer (RFC 6901) names, if any,
// as a JSON patch "remove" does: a list item is taken out of its list.
func removePointer(obj map[string]any, ptr string) {
	if obj == nil || !strings.HasPrefix(ptr, "/") {
		return
	}
	tokens := strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	removeAt(obj, tokens)
}

// removeAt removes the path from v and returns v (a list shortens, so its
// holder must store the result).
func removeAt(v any, tokens []string) any {
	switch c := v.(type) {
	case map[string]any:
		if len(tokens) == 1 {
			delete(c, tokens[0])
		} else if child, ok := c[tokens[0]]; ok {
			c[tokens[0]] = removeAt(child, tokens[1:])
		}
	case []any:
		n, err := strconv.Atoi(tokens[0])
		if err != nil || n < 0 || n >= len(c) {
			return v
		}
		if len(tokens) == 1 {
			return append(c[:n:n], c[n+1:]...)
		}
		c[n] = removeAt(c[n], tokens[1:])
	}
	return v
}
