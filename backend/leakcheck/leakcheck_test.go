package leakcheck

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps what Cycles reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Failed() bool        { return len(r.errors) > 0 }
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}

func TestCyclesCatchOneLeakedGoroutineOrFilePerCycle(t *testing.T) {
	settle = time.Second // the leaks here never end: no need to wait long
	stop := make(chan struct{})
	defer close(stop)
	r := &recorder{TB: t}
	Cycles(r, 100, 20, func(int) { go func() { <-stop }() })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "goroutines") {
		t.Errorf("a goroutine left per cycle: reported %q", r.errors)
	}

	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	r = &recorder{TB: t}
	Cycles(r, 100, 20, func(int) {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	})
	if len(r.errors) != 1 {
		t.Errorf("a file left open per cycle: reported %q", r.errors)
	}

	r = &recorder{TB: t}
	Cycles(r, 100, 20, func(int) {
		done := make(chan struct{})
		go func() { close(done) }()
		<-done
	})
	if len(r.errors) != 0 {
		t.Errorf("cycles that end what they start: reported %q", r.errors)
	}
}
