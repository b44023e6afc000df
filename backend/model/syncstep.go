package model

import "fmt"

// SyncStep is where a running Argo CD sync is: its phase, and for a
// resource it waits on, that resource's wave among the app's waves.
type SyncStep struct {
	Phase string // PreSync, Sync, PostSync or SyncFail
	// WaitsOn is the first resource the controller waits on,
	// "<group>/<kind>/<name>" as its message names it.
	WaitsOn string
	// Wave is WaitsOn's sync wave when status.resources gives it, and
	// Waves its lowest and highest wave then.
	Wave, FirstWave, LastWave int64
	HasWave                   bool
}

// String is "Sync phase, wave 0 of -1..1", or "PreSync phase".
func (s SyncStep) String() string {
	out := s.Phase + " phase"
	if s.Phase == "" {
		out = "phase unknown"
	}
	if s.HasWave {
		out += fmt.Sprintf(", wave %d of %d..%d", s.Wave, s.FirstWave, s.LastWave)
	}
	return out
}
