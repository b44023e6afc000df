package fluxdiff

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{NoCRDs: true}) }
