package main

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// The bench's etcd seeding must give the fleet the API server's seeding
// gives: every object of every kind, its status included, read back through
// the API server the same but for what the server stamps on a write.
func TestClusterSeedingEtcdStoresWhatTheAPIServerWould(t *testing.T) {
	testcluster.RequireBinaries(t)
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	size := fleetSize{apps: 60, stacks: 12, kustomizations: 7, helmReleases: 3, terraforms: 2}
	now := time.Now()
	ctx := context.Background()
	cps := make([]*controlPlane, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range cps {
		wg.Go(func() { cps[i], errs[i] = startControlPlane(root, "auto") })
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, cp := range cps {
			if cp != nil {
				_ = cp.Stop()
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	api, err := seedFleet(ctx, cps[0], size, "api", now)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := seedFleet(ctx, cps[1], size, "etcd", now)
	if err != nil {
		t.Fatal(err)
	}
	if direct.Requests >= api.Requests/10 {
		t.Errorf("etcd seeding took %d requests for what the API server took %d: not in bulk", direct.Requests, api.Requests)
	}
	for _, c := range append(collections(size), collection{"ApplicationSets", "/apis/argoproj.io/v1alpha1/applicationsets", len(fleetgen.AppSets(size.apps))}) {
		want, got := listed(t, cps[0], c.Path), listed(t, cps[1], c.Path)
		if len(got) != c.Objects || len(want) != c.Objects {
			t.Fatalf("%s: %d through etcd, %d through the API server, want %d", c.Kind, len(got), len(want), c.Objects)
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("%s differ:\nthrough the API server: %s\nthrough etcd:           %s", c.Kind, want[i], got[i])
			}
		}
	}
}

// listed reads a collection through the API server, each object as JSON
// without what the server stamps on a write, sorted.
func listed(t *testing.T, cp *controlPlane, path string) []string {
	t.Helper()
	rc, err := newFastClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	body, err := rc.Get().AbsPath(path).DoRaw(context.Background())
	if err != nil {
		t.Fatalf("LIST %s: %v", path, err)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, obj := range list.Items {
		meta := obj["metadata"].(map[string]any)
		for _, stamped := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"} {
			delete(meta, stamped)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}
