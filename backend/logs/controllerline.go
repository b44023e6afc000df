package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// controllerLine is one entry of a controller-runtime JSON log, the form
// every Flux controller writes (its documented tags: level, ts, msg,
// error, controllerKind, name, namespace, reconcileID).
type controllerLine struct {
	ts, level, msg, err   string
	kind, name, namespace string
	// rest are the entry's other fields (revision, output, ...), sorted,
	// rendered key=value.
	rest []string
}

// routine are the fields every reconcile's entries repeat: the object the
// lines are already narrowed to, and the controller's bookkeeping.
var routine = []string{"ts", "level", "msg", "error", "controller", "controllerGroup", "controllerKind", "name", "namespace", "reconcileID", "logger", "caller"}

func parseControllerLine(raw string) (controllerLine, bool) {
	raw = strings.TrimSpace(raw)
	if !strings.HasPrefix(raw, "{") {
		return controllerLine{}, false
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return controllerLine{}, false
	}
	e := controllerLine{ts: plain(m["ts"]), level: plain(m["level"]), msg: plain(m["msg"]), err: plain(m["error"]),
		kind: plain(m["controllerKind"]), name: plain(m["name"]), namespace: plain(m["namespace"])}
	for k, v := range m {
		// controller-runtime also logs the object under its kind's name.
		if slices.Contains(routine, k) || strings.EqualFold(k, e.kind) {
			continue
		}
		e.rest = append(e.rest, k+"="+text(v))
	}
	slices.Sort(e.rest)
	return e, true
}

// String is the entry as flux logs prints it, without the object every
// line is about: time, level, message, the error (first, where a cut
// screen line still shows it), then the other fields.
func (e controllerLine) String() string {
	var b strings.Builder
	for _, s := range []string{e.ts, e.level, e.msg} {
		if s != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s)
		}
	}
	if e.err != "" {
		b.WriteString(": " + e.err)
	}
	for _, kv := range e.rest {
		b.WriteString("  " + kv)
	}
	return b.String()
}

// plain is a field read as text: a string as it is, else as text renders it.
func plain(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return text(v)
}

// text renders a JSON value compactly: strings bare (quoted when they hold
// spaces), numbers as written, the rest as JSON.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		if strings.ContainsAny(v, " \t") {
			return strconv.Quote(v)
		}
		return v
	case json.Number:
		return v.String()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
