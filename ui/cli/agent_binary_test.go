package cli

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	prommodel "github.com/prometheus/common/model"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/testkit/syncbuf"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
)

// builtBinary is driftdeck as users run it (with the race detector when the
// tests have it), built once for every test package.
func builtBinary(t *testing.T) string {
	t.Helper()
	return testbin.Build(t, "github.com/driftdeck/driftdeck")
}

// agentProcess is one `driftdeck agent` replica run from the built binary,
// with its own config and state directories (its own audit log).
type agentProcess struct {
	t       *testing.T
	cmd     *exec.Cmd
	stderr  *syncbuf.Buffer
	state   string
	metrics string
	exited  chan struct{}
}

var agentAddrs = regexp.MustCompile(`metrics on (\S+), probes on (\S+),`)

// startAgent runs the binary's agent with args, as replica id (POD_NAME),
// with config as its config file, and waits until it says where it serves.
func startAgent(t *testing.T, bin, id, config string, args ...string) *agentProcess {
	t.Helper()
	home := t.TempDir()
	if config != "" {
		if err := os.MkdirAll(filepath.Join(home, "config", "driftdeck"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "config", "driftdeck", "config.yaml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := &agentProcess{t: t, stderr: &syncbuf.Buffer{}, state: filepath.Join(home, "state"), exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"agent", "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0", "--metrics-secure=false"}, args...)...)
	p.cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG=", "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+p.state, "POD_NAME="+id)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(p.kill)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m := agentAddrs.FindStringSubmatch(p.stderr.String()); m != nil {
			p.metrics = m[1]
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("agent %s exited: %s", id, p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %s did not say where it serves within 60s: %s", id, p.stderr.String())
		}
	}
}

// kill ends the replica with SIGKILL: a crash, nothing released.
func (p *agentProcess) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// series reads the replica's /metrics with the Prometheus text parser: each
// series of the metric name as its labels and value.
func (p *agentProcess) series(name string) []labeledValue {
	p.t.Helper()
	resp, err := http.Get("http://" + p.metrics + "/metrics")
	if err != nil {
		p.t.Fatalf("scraping %s: %v", p.metrics, err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(prommodel.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		p.t.Fatalf("/metrics of %s is not the Prometheus text format: %v", p.metrics, err)
	}
	var out []labeledValue
	if f := fams[name]; f != nil {
		for _, m := range f.Metric {
			lv := labeledValue{labels: map[string]string{}, value: m.GetGauge().GetValue() + m.GetCounter().GetValue()}
			for _, l := range m.Label {
				lv.labels[l.GetName()] = l.GetValue()
			}
			out = append(out, lv)
		}
	}
	return out
}

type labeledValue struct {
	labels map[string]string
	value  float64
}

// sum adds the values of the metric's series that carry the labels given.
func (p *agentProcess) sum(name string, want map[string]string) float64 {
	p.t.Helper()
	var s float64
next:
	for _, lv := range p.series(name) {
		for k, v := range want {
			if lv.labels[k] != v {
				continue next
			}
		}
		s += lv.value
	}
	return s
}

// auditLines are the replica's audit log entries.
func (p *agentProcess) auditLines() []audit.Entry {
	p.t.Helper()
	return audittest.Entries(p.t, filepath.Join(p.state, "driftdeck", "audit.jsonl"))
}
