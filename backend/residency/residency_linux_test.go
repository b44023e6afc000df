//go:build linux

package residency

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// rssFile is the file-backed part of the process's resident set, in kB.
func rssFile(t *testing.T) int {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// The test binary's pages of code and read-only data stop counting once
// released, and the program keeps running: what it uses comes back.
func TestReleaseStartupPagesDropsTheExecutablesPagesAndKeepsRunning(t *testing.T) {
	before := rssFile(t)
	if err := ReleaseStartupPages(); err != nil {
		t.Fatal(err)
	}
	runtime.GC() // code, type data and pc tables in use again
	var sb strings.Builder
	for i := range 1000 {
		sb.WriteString(strconv.Itoa(i))
	}
	if sb.Len() != 2890 {
		t.Fatalf("built %d bytes, want 2890", sb.Len())
	}
	after := rssFile(t)
	t.Logf("file-backed resident memory: %d kB before, %d kB after", before, after)
	if after >= before {
		t.Errorf("file-backed resident memory %d kB after the release, %d kB before: nothing was released", after, before)
	}
}
