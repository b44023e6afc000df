// Package audit appends one JSON line per attempted write to driftdeck's local
// audit log (in the XDG state directory), so that what was done during an
// incident can be reconstructed later even when the cluster's Events are gone.
package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Entry is one audited attempt.
type Entry struct {
	Time     time.Time       `json:"time"`
	Actor    string          `json:"actor"`
	Context  string          `json:"context"`
	Unit     string          `json:"unit"`
	Action   string          `json:"action"`
	Reason   string          `json:"reason,omitempty"`
	DryRun   bool            `json:"dryRun,omitempty"`
	Outcome  string          `json:"outcome"` // done, dry-run, refused, failed
	Error    string          `json:"error,omitempty"`
	Patch    json.RawMessage `json:"patch,omitempty"`
	Previous string          `json:"previous,omitempty"`
	// ResourceVersion after the write, when it was made.
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// Log is an append-only JSON-lines file. It is safe for concurrent use.
type Log struct {
	mu   sync.Mutex
	path string
}

// Open returns the log at path, creating its directory.
func Open(path string) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &Log{path: path}, nil
}

// DefaultPath is $XDG_STATE_HOME/driftdeck/audit.jsonl (~/.local/state when unset).
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("audit log: no XDG_STATE_HOME and no home directory: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "driftdeck", "audit.jsonl"), nil
}

// Path is where the log is written.
func (l *Log) Path() string { return l.path }

// Append writes one entry, synced to disk: an audit line that can be lost in a
// crash is no audit line.
func (l *Log) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	return f.Close()
}
