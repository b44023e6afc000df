package actions

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testcluster"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// dropPatches has the proxy apply fault to the next patch of an
// Application, and then every request after it when thenAll is set.
func dropPatches(p *testcluster.Proxy, fault testcluster.Fault, thenAll bool) *atomic.Int32 {
	var dropped atomic.Int32
	p.SetFault(func(r *http.Request) testcluster.Fault {
		if dropped.Load() > 0 && thenAll {
			dropped.Add(1)
			return testcluster.DropBeforeForward
		}
		if r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/applications/") && dropped.CompareAndSwap(0, 1) {
			return fault
		}
		return testcluster.Pass
	})
	return &dropped
}

func TestClusterAWriteWhoseAnswerIsLostIsReadBackNotGuessed(t *testing.T) {
	c := testcluster.Shared(t)
	p := c.Proxy(t)
	base := newEnv(t, c, p.Config())

	lastAudit := func(e *env) string {
		lines := e.auditLines()
		if len(lines) == 0 {
			return ""
		}
		return lines[len(lines)-1].Outcome
	}
	paused := func(e *env) bool {
		return argocd.Convert("test", e.get(argocd.Applications, "web").Object).Automation == model.Paused
	}

	base.sub("applied", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true}`, `"sync":{"status":"Synced"}`)
		dropped := dropPatches(p, testcluster.DropAfterForward, false)
		res, err := e.run(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "INC-7"})
		p.SetFault(nil)
		if dropped.Load() != 1 {
			t.Fatal("the patch's answer was not dropped: the fault did not happen")
		}
		if err != nil {
			t.Fatalf("the pause reached the cluster, yet it reports %v", err)
		}
		if !paused(e) || !res.Verified {
			t.Fatalf("reported applied: the Application must be paused and the write verified (verified %v)", res.Verified)
		}
		if !contains(res.Warnings, "it was applied") {
			t.Errorf("the result must say the answer was lost and read back: %v", res.Warnings)
		}
		if got := lastAudit(e); got != writeguard.OutcomeDone {
			t.Errorf("audit outcome %q, want done", got)
		}
	})

	base.sub("not applied", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true}`, `"sync":{"status":"Synced"}`)
		dropped := dropPatches(p, testcluster.DropBeforeForward, false)
		_, err := e.run(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "INC-7"})
		p.SetFault(nil)
		if dropped.Load() != 1 {
			t.Fatal("the patch was not dropped: the fault did not happen")
		}
		if err == nil || !strings.Contains(err.Error(), "not applied") {
			t.Fatalf("the pause never reached the cluster; want an error saying it was not applied, got %v", err)
		}
		if paused(e) {
			t.Fatal("the Application is paused, yet the patch was dropped")
		}
		if got := lastAudit(e); got != writeguard.OutcomeFailed {
			t.Errorf("audit outcome %q, want failed", got)
		}
	})

	base.sub("unknown", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true}`, `"sync":{"status":"Synced"}`)
		dropped := dropPatches(p, testcluster.DropAfterForward, true)
		_, err := e.run(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "INC-7"})
		p.SetFault(nil)
		if dropped.Load() < 2 {
			t.Fatalf("%d requests dropped: the read back was never tried", dropped.Load())
		}
		if !writeguard.IsUnknown(err) || !strings.Contains(err.Error(), "not known") {
			t.Fatalf("neither the answer nor a read back came: want the outcome reported unknown, got %v", err)
		}
		if got := lastAudit(e); got != writeguard.OutcomeUnknown {
			t.Errorf("audit outcome %q, want unknown", got)
		}
		if !paused(e) {
			t.Error("the patch was forwarded: the Application should be paused in fact")
		}
	})

	base.sub("unknown in bulk", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true}`, `"sync":{"status":"Synced"}`)
		dropPatches(p, testcluster.DropAfterForward, true)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out := e.exec.Bulk(ctx, BulkRequest{Kind: Pause, Keys: []model.Key{e.key(model.EngineArgoCD, "web")}, Reason: "INC-7"})
		p.SetFault(nil)
		if len(out) != 1 || out[0].Outcome != OutcomeUnknown || !strings.Contains(out[0].Why, "not known") {
			t.Fatalf("a bulk write of unknown outcome: %+v; want it reported unknown, neither applied nor failed", out)
		}
	})
}
