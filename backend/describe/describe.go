// Package describe holds what the detail view shows about one unit: the
// object as YAML (managedFields hidden), its recent Events, and the engine's
// own records (Argo CD history and resources, the Updates of a Stack). It is
// plain data: backend/livedescribe reads it from the cluster.
package describe

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/workspace"
)

// Detail is one unit, described.
type Detail struct {
	Key        model.Key
	YAML       string
	Events     []Event
	History    []HistoryEntry
	Resources  []Resource
	SyncResult []Resource // resources of the last operation
	Updates    []pulumiop.Update
	// MemoryKills are a Stack's workspace containers killed for memory.
	MemoryKills []workspace.MemoryKill
	Outputs     []string // Stack output names (values are not shown: they may be secrets)
	// Agent says whether an agent runs in the unit's context, read from its
	// Lease; nil unless the unit's pause has an expiry (then it says who
	// ends the pause: model.AgentPresence.Ends).
	Agent *model.AgentPresence
	// Problems lists what could not be read (Events forbidden, ...).
	Problems []string
	Fetched  time.Time
}

// Event is a Kubernetes Event about the object.
type Event struct {
	Type, Reason, Message, Source string
	Count                         int32
	Last                          time.Time
}

// HistoryEntry is one Argo CD deployment.
type HistoryEntry struct {
	ID          int64
	Revision    string
	DeployedAt  time.Time
	InitiatedBy string
}

// Resource is one resource an Argo CD Application manages.
type Resource struct {
	Group, Kind, Namespace, Name string
	Status, Health, Message      string
	RequiresPruning              bool
}
