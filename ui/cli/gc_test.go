package cli

import (
	"runtime/debug"
	"testing"
)

func TestTuneGCCollectsAtHalfGrowthUnlessTheUserSetGOGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	t.Setenv("GOGC", "")
	TuneGC()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("without GOGC the collector runs at %d%% growth; want 50", got)
	}
	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200) // what the runtime read from GOGC at start
	TuneGC()
	if got := debug.SetGCPercent(100); got != 200 {
		t.Errorf("with GOGC=200 the collector runs at %d%% growth; want the user's 200", got)
	}
}
