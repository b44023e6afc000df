// Command testreport turns `go test -json` output into a readable report and
// counts the real-cluster tests (TestCluster...).
//
//	go test -json ./... | go run ./testdata/tools/testreport [-save events.json]
//	go run ./testdata/tools/testreport -summary -require-cluster < events.json
//
// The report shows what `go test` shows without -v: a line per package, and
// the full output of every failed test; it adds the skipped real-cluster tests
// with their reasons. It exits 1 when a test or build failed, or, with
// -require-cluster, when no real-cluster test passed or one was skipped.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string // build-output and build-fail events
}

const clusterPrefix = "TestCluster"

type report struct {
	out     io.Writer
	summary bool // print only the final summary

	lines    map[string][]line          // package -> its output so far, in order
	failures map[string]map[string]bool // package -> its failed tests
	failed   bool
	packages map[string]string // package -> ok, FAIL or skip
	cluster  map[string]string // package.TestCluster... -> pass, fail or skip
	skipped  []string          // skipped real-cluster tests and subtests, with reasons
}

type line struct{ test, text string }

func newReport(out io.Writer, summary bool) *report {
	return &report{out: out, summary: summary, lines: map[string][]line{},
		failures: map[string]map[string]bool{}, packages: map[string]string{}, cluster: map[string]string{}}
}

func (r *report) printf(format string, args ...any) {
	if !r.summary {
		fmt.Fprintf(r.out, format, args...)
	}
}

func (r *report) handle(e event) {
	switch e.Action {
	case "build-output":
		r.printf("%s", e.Output)
	case "build-fail":
		r.failed = true
	case "output":
		r.lines[e.Package] = append(r.lines[e.Package], line{e.Test, e.Output})
	case "pass", "fail", "skip":
		if e.Action == "fail" {
			r.failed = true
		}
		if e.Test == "" {
			r.finishPackage(e)
		} else {
			r.finishTest(e)
		}
	}
}

func (r *report) finishTest(e event) {
	if e.Action == "fail" {
		if r.failures[e.Package] == nil {
			r.failures[e.Package] = map[string]bool{}
		}
		r.failures[e.Package][e.Test] = true
	}
	top, _, sub := strings.Cut(e.Test, "/")
	if !strings.HasPrefix(top, clusterPrefix) {
		return
	}
	if !sub {
		r.cluster[e.Package+"."+e.Test] = e.Action
	}
	if e.Action == "skip" {
		r.skipped = append(r.skipped, fmt.Sprintf("%s.%s: %s", e.Package, e.Test, skipReason(r.lines[e.Package], e.Test)))
	}
}

// finishPackage prints a package's line and, when it failed, the output of
// its failed tests (and what it printed outside tests: a panic, a timeout).
func (r *report) finishPackage(e event) {
	lines, failures := r.lines[e.Package], r.failures[e.Package]
	delete(r.lines, e.Package)
	delete(r.failures, e.Package)
	switch e.Action {
	case "pass":
		r.packages[e.Package] = "ok"
		r.printf("ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
		return
	case "skip":
		r.packages[e.Package] = "skip"
		r.printf("?   \t%s\t[no test files]\n", e.Package)
		return
	}
	r.packages[e.Package] = "FAIL"
	for _, l := range lines {
		if l.test != "" && !failures[l.test] || isFrame(l.text) {
			continue
		}
		if l.test == "" && (l.text == "FAIL\n" || strings.HasPrefix(l.text, "FAIL\t"+e.Package)) {
			continue
		}
		r.printf("%s", l.text)
	}
	r.printf("FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
}

// isFrame tells the lines that only frame test output in verbose mode.
func isFrame(text string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// skipReason finds the message of a test's t.Skip in its package's output.
func skipReason(lines []line, test string) string {
	reason := "(no reason given)"
	for _, l := range lines {
		text := strings.TrimSpace(l.text)
		if l.test != test || text == "" || isFrame(text) || strings.HasPrefix(text, "--- SKIP") {
			continue
		}
		reason = text
	}
	return reason
}

func (r *report) counts() (passed, skipped, failed int) {
	for _, result := range r.cluster {
		switch result {
		case "pass":
			passed++
		case "skip":
			skipped++
		case "fail":
			failed++
		}
	}
	return
}

// finalize prints the summary and returns the exit status.
func (r *report) finalize(requireCluster bool) int {
	passed, skipped, failed := r.counts()
	pkgFailed := 0
	for _, result := range r.packages {
		if result == "FAIL" {
			pkgFailed++
		}
	}
	fmt.Fprintf(r.out, "\n%d packages, %d failed. Real-cluster tests (%s*): %d passed, %d failed, %d skipped",
		len(r.packages), pkgFailed, clusterPrefix, passed, failed, skipped)
	if sub := len(r.skipped) - skipped; sub > 0 {
		fmt.Fprintf(r.out, " (and %d skipped subtests)", sub)
	}
	fmt.Fprintln(r.out, ".")
	for _, s := range r.skipped {
		fmt.Fprintf(r.out, "  skipped %s\n", s)
	}
	status := 0
	if r.failed {
		status = 1
	}
	if requireCluster && (passed == 0 || len(r.skipped) > 0) {
		fmt.Fprintln(r.out, "FAIL: the real-cluster tests must all run, and pass")
		status = 1
	}
	return status
}

func main() { os.Exit(run()) }

func run() int {
	save := flag.String("save", "", "also write the event stream to this file")
	summary := flag.Bool("summary", false, "print only the summary")
	requireCluster := flag.Bool("require-cluster", false, "fail unless real-cluster tests passed and none was skipped")
	flag.Parse()

	var in io.Reader = os.Stdin
	if *save != "" {
		f, err := os.Create(*save)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			return 2
		}
		defer f.Close()
		in = io.TeeReader(os.Stdin, f)
	}
	r := newReport(os.Stdout, *summary)
	if err := r.read(in); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		return 2
	}
	return r.finalize(*requireCluster)
}

func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			r.printf("%s\n", sc.Text()) // not an event: go test's own words
			continue
		}
		r.handle(e)
	}
	return sc.Err()
}
