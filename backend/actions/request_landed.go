package actions

import "strings"

// requestLanded judges a reconcile request read back: the unique token
// written to the annotation key, which the controller keeps and records,
// once handled, at one of the handled paths of its status. Another request
// written over it since hides whether this one landed, unless the status
// shows it handled.
func requestLanded(before map[string]any, key, token string, handled ...[]string) func(map[string]any) (landing, string) {
	was, hadOne := annotationsOf(before)[key]
	return func(after map[string]any) (landing, string) {
		now, ok := annotationsOf(after)[key]
		if ok && now == token {
			return landed, "it holds the request"
		}
		for _, path := range handled {
			if lookupString(after, path...) == token {
				return landed, "the controller has handled the request (status." + strings.Join(path[1:], ".") + ")"
			}
		}
		if ok == hadOne && now == was {
			return notLanded, "it holds the request it held before (" + orWord(was, "none") + ")"
		}
		return landingUnknown, "another request (" + orWord(now, "none") + ") has replaced it since, and none handled shows this one"
	}
}
