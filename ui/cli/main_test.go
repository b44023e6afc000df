package cli

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{}) }
