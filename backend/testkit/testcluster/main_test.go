package testcluster

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv(leakHelperEnv) == "1" {
		runLeakHelper()
		return
	}
	Main(m, Options{})
}
