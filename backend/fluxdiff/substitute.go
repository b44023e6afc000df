package fluxdiff

import (
	"regexp"
	"strings"
)

// substitution is a postBuild variable: ${name}, ${name:=default} or ${name:-default}.
var substitution = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[=-]([^}]*))?\}`)

// substitute replaces postBuild variables in every string of the object, as
// kustomize-controller does with spec.postBuild.substitute; a variable
// without a value or default is left as written. "$${x}" stays "${x}".
func substitute(v any, vars map[string]string) any {
	switch x := v.(type) {
	case string:
		const escaped = "\x00dollar\x00"
		s := strings.ReplaceAll(x, "$${", escaped)
		s = substitution.ReplaceAllStringFunc(s, func(m string) string {
			g := substitution.FindStringSubmatch(m)
			if val, ok := vars[g[1]]; ok {
				return val
			}
			if strings.Contains(m, ":=") || strings.Contains(m, ":-") {
				return g[2]
			}
			return m
		})
		return strings.ReplaceAll(s, escaped, "${")
	case map[string]any:
		for k, e := range x {
			x[k] = substitute(e, vars)
		}
	case []any:
		for i, e := range x {
			x[i] = substitute(e, vars)
		}
	}
	return v
}
