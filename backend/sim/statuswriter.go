package sim

import (
	"context"
	"strconv"
	"time"

	"k8s.io/client-go/dynamic"
)

// StatusWriter is a controller at full tilt: it writes a counter into an
// object's status again and again with the targeted merge patches the real
// controllers use, so a test can check that writes made concurrently by
// driftdeck lose none of its writes and it loses none of theirs.
type StatusWriter struct {
	Client dynamic.ResourceInterface // the object's resource, in its namespace
	Name   string
	// Subresource writes through the status subresource (Pulumi Stacks);
	// false writes the main resource (Argo CD Applications).
	Subresource bool
	// Counter is the path under status where the count goes, as a string
	// (the schema must keep it: e.g. health.message of an Application,
	// outputs.<key> of a Stack).
	Counter []string
	// Stamp, when set, is a path under status that gets the time of each
	// write (e.g. reconciledAt).
	Stamp []string
	// Interval is the pause between writes; zero writes back to back.
	Interval time.Duration
}

// Run writes until ctx ends. It returns how many writes succeeded: the
// counter then holds that number. A failed write ends the run with its error.
func (w *StatusWriter) Run(ctx context.Context) (int, error) {
	var sub []string
	if w.Subresource {
		sub = []string{"status"}
	}
	n := 0
	for {
		if ctx.Err() != nil {
			return n, nil
		}
		status := map[string]any{}
		setPath(status, w.Counter, strconv.Itoa(n+1))
		if len(w.Stamp) > 0 {
			setPath(status, w.Stamp, time.Now().UTC().Format(time.RFC3339Nano))
		}
		// A write in flight is finished even when ctx ends meanwhile: a
		// cancelled request may or may not have landed, and the count must
		// be exact.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_, err := mergePatch(wctx, w.Client, w.Name, "status-writer", map[string]any{"status": status}, sub...)
		cancel()
		if err != nil {
			return n, err
		}
		n++
		if w.Interval > 0 {
			select {
			case <-ctx.Done():
				return n, nil
			case <-time.After(w.Interval):
			}
		}
	}
}

func setPath(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}
