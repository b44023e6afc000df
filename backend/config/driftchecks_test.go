package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDriftChecksAreReadAndASilentScheduleRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte("driftChecks:\n  every: 6h\n  jitter: 20m\n  concurrency: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	d := c.DriftChecks
	if d == nil || time.Duration(d.Every) != 6*time.Hour || time.Duration(d.Jitter) != 20*time.Minute || d.Concurrency != 2 || d.Check() != nil {
		t.Fatalf("read %+v; want every 6h, jitter 20m, 2 at once", d)
	}
	for _, bad := range []DriftChecks{{}, {Every: Duration(30 * time.Second)}, {Every: Duration(time.Hour), Concurrency: -1}} {
		if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "driftChecks") {
			t.Errorf("%+v: %v; want it refused, naming driftChecks", bad, err)
		}
	}
}
