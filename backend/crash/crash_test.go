package crash

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

const planted = "PLANTED-crash-secret-4b5c"

// panicked runs f and returns the report of its panic, as a guard builds it.
func panicked(f func()) (rep *Report) {
	defer func() { rep = New(recover(), debug.Stack(), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)) }()
	f()
	return nil
}

type hostileError struct{}

func (hostileError) Error() string { return "bad object " + planted + " \x1b]52;c;aGk=\x07" }
func (hostileError) RuntimeError() {}

// A panic whose value quotes an object (a string, an error, even one that
// claims to be the runtime's) is reported by type and size: neither the
// short report nor the file holds the value or a raw escape sequence; the
// runtime's own messages stay, and the report names where it happened.
func TestAReportHoldsNoValueThePanicCarried(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var nilMap map[string]map[string]int
	cases := map[string]struct {
		f    func()
		want string
	}{
		"a string": {func() { panic("unexpected status of " + planted + " \x1b[2J") }, "a string value, 51 bytes (its text is withheld"},
		"an error": {func() { panic(hostileError{}) }, "a crash.hostileError value, 49 bytes (its text is withheld"},
		"a runtime error": {func() {
			s := []string{planted}
			i := len(s) + 2
			_ = s[i]
		}, "runtime error: index out of range [3] with length 1"},
		"a nil map write": {func() { nilMap["a"]["b"] = 1 }, "assignment to entry in nil map"},
	}
	for name, c := range cases {
		rep := panicked(c.f)
		path, err := rep.Write()
		if err != nil {
			t.Fatal(err)
		}
		short := rep.Short(path, nil)
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"short report": short, "report file": string(file)} {
			if strings.Contains(text, planted) || strings.ContainsAny(text, "\x1b\x07") {
				t.Errorf("%s: the %s holds the panic's value or a raw escape:\n%q", name, what, text)
			}
			if !strings.Contains(text, c.want) {
				t.Errorf("%s: the %s lacks %q:\n%s", name, what, c.want, text)
			}
		}
		if !strings.Contains(short, "crash/crash_test.go:") || !strings.Contains(short, path) {
			t.Errorf("%s: the short report names neither where nor the file:\n%s", name, short)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(path) != filepath.Join(os.Getenv("XDG_STATE_HOME"), "driftdeck") {
			t.Errorf("%s: the report file is %s (%v), want one the user alone reads beside the audit log", name, path, fi.Mode())
		}
		if !strings.Contains(string(file), "goroutine ") || !strings.Contains(string(file), "TestAReportHoldsNoValueThePanicCarried") {
			t.Errorf("%s: the report file lacks the stack:\n%s", name, file)
		}
	}
}

// A report that cannot be written says why, and the short report stands.
func TestAReportThatCannotBeWrittenSaysWhy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", dir) // a file, not a directory
	rep := panicked(func() { panic(planted) })
	path, err := rep.Write()
	if err == nil {
		t.Fatalf("written to %s", path)
	}
	short := rep.Short(path, err)
	if !strings.Contains(short, "could not be written: ") || strings.Contains(short, planted) {
		t.Errorf("short report:\n%s", short)
	}
}
