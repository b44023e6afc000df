package stackops

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The TestCluster... tests share one real control plane, stopped here.
func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{}) }
