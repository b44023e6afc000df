package livedescribe

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testdemo"
)

func TestMain(m *testing.M) { testdemo.Main(m) }
