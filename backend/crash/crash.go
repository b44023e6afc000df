// Package crash writes the report of a panic (ADR 0024): a short one for
// the terminal and a full one to a file beside the audit log, neither
// holding a value from the clusters. A panic's value is whatever the code
// that panicked put in it, an object's field included, so only the Go
// runtime's own messages (an index out of range, a nil dereference) are
// kept; any other value is named by its type and size. The stack holds
// function names, files and lines, and argument words (pointers, lengths),
// never the strings they point to.
package crash

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// Report is one panic, described without its data.
type Report struct {
	// Value describes the panic's value (see Describe).
	Value string
	// Where is the innermost driftdeck function on the stack, file:line.
	Where string
	// Stack is the panicking goroutine's stack.
	Stack string
	At    time.Time
}

// New describes the panic r with the stack of the goroutine that recovered
// it (debug.Stack() in the deferred function).
func New(r any, stack []byte, at time.Time) *Report {
	s := safetext.Block(string(stack))
	return &Report{Value: Describe(r), Where: innermost(s), Stack: s, At: at}
}

// Describe is the panic value as a report may show it: the message of a
// Go runtime error (it holds indexes, lengths and type names only), else
// the value's type and size, its text withheld.
func Describe(r any) string {
	if err, ok := r.(runtime.Error); ok && fromRuntime(r) {
		return safetext.Visible(err.Error())
	}
	size := ""
	switch v := r.(type) {
	case string:
		size = fmt.Sprintf(", %d bytes", len(v))
	case error:
		size = fmt.Sprintf(", %d bytes", len(v.Error()))
	}
	return fmt.Sprintf("a %s value%s (its text is withheld: it may quote the clusters' objects)", safetext.Visible(fmt.Sprintf("%T", r)), size)
}

// fromRuntime tells the runtime's own errors from a value of another
// package that claims to be one.
func fromRuntime(r any) bool {
	t := reflect.TypeOf(r)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == "runtime"
}

// innermost is the file:line of the first driftdeck frame of a stack as
// debug.Stack writes it (the recovering frames, in runtime and in this
// package's callers' guards, come first and are skipped).
func innermost(stack string) string {
	lines := strings.Split(stack, "\n")
	panicked := false
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			panicked = true
			continue
		}
		if panicked && strings.HasPrefix(l, "github.com/driftdeck/driftdeck/") && i+1 < len(lines) {
			file := strings.TrimSpace(lines[i+1])
			if j := strings.LastIndex(file, " +0x"); j > 0 {
				file = file[:j]
			}
			fn := l
			if j := strings.LastIndex(fn, "("); j > 0 {
				fn = fn[:j]
			}
			return fn + " (" + file + ")"
		}
	}
	return ""
}

// Short is what the terminal shows: what happened, where, and the file of
// the full report (empty when it could not be written, with why).
func (r *Report) Short(path string, writeErr error) string {
	var b strings.Builder
	b.WriteString("driftdeck crashed (a bug, not your cluster): panic: " + r.Value)
	if r.Where != "" {
		b.WriteString("\n  in " + r.Where)
	}
	if writeErr != nil {
		b.WriteString("\nthe full report could not be written: " + safetext.Visible(writeErr.Error()))
	} else {
		b.WriteString("\nthe full report (no values from your clusters) is in " + safetext.Visible(path) + "; please attach it to a bug report")
	}
	return b.String()
}

// Full is the report file's text.
func (r *Report) Full() string {
	return fmt.Sprintf("driftdeck crash report\ntime: %s\ngo: %s %s/%s\npanic: %s\n\n%s", r.At.UTC().Format(time.RFC3339),
		runtime.Version(), runtime.GOOS, runtime.GOARCH, r.Value, r.Stack)
}

// Write puts the full report in a new file of the state directory (where
// the audit log is), readable by the user alone, and returns its path.
func (r *Report) Write() (string, error) {
	log, err := audit.DefaultPath()
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(log)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "crash-"+r.At.UTC().Format("20060102-150405")+"-*.txt")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(r.Full())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}
