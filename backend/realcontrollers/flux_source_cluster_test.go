package realcontrollers

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// A GitRepository the real source-controller cannot fetch holds up the
// Kustomization that reads it: driftdeck's live model says the unit is stuck
// on the spot, with the source's own reason from the source object (not the
// Kustomization's generic "artifact not found"), and the source's readiness.
func TestClusterRealFluxUnitIsStuckOnItsSourcesOwnReason(t *testing.T) {
	e := realFluxEnv(t)
	// A port nothing listens on: the clone fails at once, as an unreachable
	// Git server would.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + l.Addr().String() + "/repo.git"
	l.Close()
	e.create(gitRepositories, map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": "unreachable", "namespace": e.ns},
		"spec":     map[string]any{"url": deadURL, "interval": "1h", "ref": map[string]any{"branch": "main"}},
	})
	e.kustomization("reads-unreachable", "unreachable", "./")
	e.kustomization("reads-nothing", "never-created", "./")

	f := fleet.New(fleet.Options{})
	kc, err := kube.NewCluster("test", testcluster.Shared(t).Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := f.Add(ctx, kc, e.ns); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}

	e.waitFor("reads-unreachable stuck on its source's reason", func() (bool, string) {
		u, ok := f.Store.Get(e.key("reads-unreachable"))
		if !ok {
			return false, "not in the model"
		}
		src := u.SourceState
		ok = u.Run == model.Stuck && src != nil && src.Ready == "False" && src.Reason != "" &&
			strings.Contains(u.RunReason, "GitRepository/"+e.ns+"/unreachable is not ready: "+src.Reason) &&
			strings.Contains(u.StuckRule, "source is not Ready")
		return ok, fmt.Sprintf("run %s (%s), rule %q, source %+v", u.Run, u.RunReason, u.StuckRule, src)
	})
	// The source's message is what the source-controller wrote, e.g. the
	// failed clone: the user sees where it tried.
	u, _ := f.Store.Get(e.key("reads-unreachable"))
	if !strings.Contains(u.SourceState.Message, l.Addr().String()) {
		t.Errorf("the source's message does not name the URL it failed on: %q", u.SourceState.Message)
	}

	e.waitFor("reads-nothing stuck on a missing source", func() (bool, string) {
		u, ok := f.Store.Get(e.key("reads-nothing"))
		if !ok {
			return false, "not in the model"
		}
		return u.Run == model.Stuck && u.SourceState != nil && u.SourceState.Missing &&
			strings.Contains(u.RunReason, "never-created does not exist"), fmt.Sprintf("run %s (%s)", u.Run, u.RunReason)
	})
}
