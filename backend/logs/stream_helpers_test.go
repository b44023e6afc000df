package logs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// collect streams into a channel, so a test can wait for each line.
func collect(ctx context.Context, s *Service, p PodRef, o Options) (<-chan Line, <-chan error) {
	lines, done := make(chan Line, 1024), make(chan error, 1)
	go func() {
		done <- s.Stream(ctx, p, o, func(l Line) { lines <- l })
		close(lines)
	}()
	return lines, done
}

// next waits for the next line of the pod's own (not a notice).
func next(t *testing.T, lines <-chan Line) string {
	t.Helper()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended early")
			}
			if !l.Notice {
				return l.Text
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no line within 30s")
		}
	}
}

func all(t *testing.T, lines <-chan Line, done <-chan error) []Line {
	t.Helper()
	var out []Line
	for l := range lines {
		out = append(out, l)
	}
	if err := <-done; err != nil {
		t.Fatalf("stream: %v", err)
	}
	return out
}

func texts(ls []Line) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintln(&b, l.Text)
	}
	return b.String()
}
