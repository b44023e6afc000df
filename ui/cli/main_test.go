package cli

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{}) }

// upstreamShared is the package's second control plane, with the newest
// upstream CRDs of every engine: another cluster next to Shared's (an Argo
// CD destination), and the real CRDs for the tests that need them.
func upstreamShared(t *testing.T) *testcluster.Cluster {
	t.Helper()
	return testcluster.SharedAs(t, "upstream", testcluster.Options{CRDSets: testcluster.UpstreamCRDSetsNamed(t, testcluster.NewestUpstream...)})
}
