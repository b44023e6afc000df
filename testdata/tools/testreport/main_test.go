package main

import (
	"bytes"
	"strings"
	"testing"
)

// A stream as `go test -json` writes it: one package passes with a skipped
// real-cluster subtest, one fails in a real-cluster subtest, one has no tests.
const stream = `{"Action":"start","Package":"ex/good"}
{"Action":"run","Package":"ex/good","Test":"TestClusterOne"}
{"Action":"output","Package":"ex/good","Test":"TestClusterOne","Output":"=== RUN   TestClusterOne\n"}
{"Action":"output","Package":"ex/good","Test":"TestClusterOne","Output":"    one_test.go:9: control plane up in 3s\n"}
{"Action":"pass","Package":"ex/good","Test":"TestClusterOne","Elapsed":3}
{"Action":"output","Package":"ex/good","Test":"TestClusterSets/b","Output":"    sets_test.go:20: no upstream CRD sets\n"}
{"Action":"skip","Package":"ex/good","Test":"TestClusterSets/b","Elapsed":0}
{"Action":"pass","Package":"ex/good","Test":"TestClusterSets","Elapsed":1}
{"Action":"pass","Package":"ex/good","Test":"TestPlain","Elapsed":0}
{"Action":"output","Package":"ex/good","Output":"ok  \tex/good\t4.1s\n"}
{"Action":"pass","Package":"ex/good","Elapsed":4.1}
{"Action":"output","Package":"ex/bad","Test":"TestClusterWrite","Output":"=== RUN   TestClusterWrite\n"}
{"Action":"output","Package":"ex/bad","Test":"TestClusterWrite/patch","Output":"    write_test.go:7: got Forbidden\n"}
{"Action":"output","Package":"ex/bad","Test":"TestClusterWrite/patch","Output":"--- FAIL: TestClusterWrite/patch (0.01s)\n"}
{"Action":"fail","Package":"ex/bad","Test":"TestClusterWrite/patch","Elapsed":0.01}
{"Action":"output","Package":"ex/bad","Test":"TestClusterWrite/read","Output":"    write_test.go:9: passing detail\n"}
{"Action":"pass","Package":"ex/bad","Test":"TestClusterWrite/read","Elapsed":0.01}
{"Action":"output","Package":"ex/bad","Test":"TestClusterWrite","Output":"--- FAIL: TestClusterWrite (0.02s)\n"}
{"Action":"fail","Package":"ex/bad","Test":"TestClusterWrite","Elapsed":0.02}
{"Action":"output","Package":"ex/bad","Output":"FAIL\n"}
{"Action":"output","Package":"ex/bad","Output":"FAIL\tex/bad\t0.5s\n"}
{"Action":"fail","Package":"ex/bad","Elapsed":0.5}
{"Action":"skip","Package":"ex/none","Elapsed":0}
`

func read(t *testing.T, summary bool, events string) (*report, *bytes.Buffer) {
	var out bytes.Buffer
	r := newReport(&out, summary)
	if err := r.read(strings.NewReader(events)); err != nil {
		t.Fatal(err)
	}
	return r, &out
}

func TestReportShowsFailuresAndCountsClusterTests(t *testing.T) {
	r, buf := read(t, false, stream)
	status := r.finalize(false)
	out := buf.String()
	if status != 1 {
		t.Errorf("status %d, want 1 for a failed test", status)
	}
	for _, want := range []string{
		"ok  \tex/good\t4.100s\n",
		"    write_test.go:7: got Forbidden\n--- FAIL: TestClusterWrite/patch (0.01s)\n--- FAIL: TestClusterWrite (0.02s)\nFAIL\tex/bad\t0.500s\n",
		"?   \tex/none\t[no test files]\n",
		"3 packages, 1 failed. Real-cluster tests (TestCluster*): 2 passed, 1 failed, 0 skipped (and 1 skipped subtests).",
		"skipped ex/good.TestClusterSets/b: sets_test.go:20: no upstream CRD sets",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"passing detail", "control plane up", "=== RUN"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("report shows %q, the output of a passing test or a frame line:\n%s", unwanted, out)
		}
	}
}

func TestRequireClusterFailsOnSkipsOrNoClusterTests(t *testing.T) {
	passing := strings.Join([]string{
		`{"Action":"pass","Package":"ex/good","Test":"TestClusterOne","Elapsed":3}`,
		`{"Action":"pass","Package":"ex/good","Elapsed":3}`,
	}, "\n")
	r, _ := read(t, true, passing)
	if status := r.finalize(true); status != 0 {
		t.Errorf("all real-cluster tests passed: status %d, want 0", status)
	}

	r, _ = read(t, true, `{"Action":"pass","Package":"ex/plain","Test":"TestPlain"}`+"\n"+`{"Action":"pass","Package":"ex/plain"}`)
	if status := r.finalize(true); status != 1 {
		t.Errorf("no real-cluster test ran: status %d, want 1", status)
	}

	skipped := strings.Join([]string{
		`{"Action":"pass","Package":"ex/good","Test":"TestClusterOne"}`,
		`{"Action":"output","Package":"ex/good","Test":"TestClusterTwo","Output":"    two_test.go:5: skipped: the test control plane is not built yet\n"}`,
		`{"Action":"skip","Package":"ex/good","Test":"TestClusterTwo"}`,
		`{"Action":"pass","Package":"ex/good"}`,
	}, "\n")
	r, out := read(t, true, skipped)
	if status := r.finalize(true); status != 1 {
		t.Errorf("a real-cluster test was skipped: status %d, want 1", status)
	}
	if !strings.Contains(out.String(), "not built yet") {
		t.Errorf("the summary does not give the skip's reason:\n%s", out.String())
	}
	if status := r.finalize(false); status != 0 {
		t.Errorf("skips without -require-cluster: status %d, want 0", status)
	}
}

func TestBuildFailureFails(t *testing.T) {
	r, buf := read(t, false, strings.Join([]string{
		`{"ImportPath":"ex/broken [ex/broken.test]","Action":"build-output","Output":"broken_test.go:5:28: undefined: undefined\n"}`,
		`{"ImportPath":"ex/broken [ex/broken.test]","Action":"build-fail"}`,
		`{"Action":"fail","Package":"ex/broken","Elapsed":0}`,
	}, "\n"))
	if status := r.finalize(false); status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	if !strings.Contains(buf.String(), "undefined: undefined") {
		t.Errorf("the build error is not shown:\n%s", buf)
	}
}
