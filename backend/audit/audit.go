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
	"syscall"
	"time"
)

// Entry is one audited attempt.
type Entry struct {
	Time    time.Time       `json:"time"`
	Actor   string          `json:"actor"`
	Context string          `json:"context"`
	Unit    string          `json:"unit"`
	Action  string          `json:"action"`
	Reason  string          `json:"reason,omitempty"`
	DryRun  bool            `json:"dryRun,omitempty"`
	Outcome string          `json:"outcome"` // done, dry-run, refused, failed, unknown
	Error   string          `json:"error,omitempty"`
	Patch   json.RawMessage `json:"patch,omitempty"`
	// Also are the writes to other objects made ahead of the unit's patch
	// (a source's reconcile request, a hung update's pod deleted).
	Also     []string `json:"also,omitempty"`
	Previous string   `json:"previous,omitempty"`
	// ResourceVersion after the write, when it was made.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Route is the way the write was sent when not the Kubernetes API
	// ("argocd-api"), through Server, as Actor.
	Route  string `json:"route,omitempty"`
	Server string `json:"server,omitempty"`
	// NoEvent says why no Kubernetes Event was written for a done write.
	NoEvent string `json:"noEvent,omitempty"`
	// Approval names the change request applied, its requester and its
	// approvers with their reasons.
	Approval string `json:"approval,omitempty"`
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
// crash is no audit line. The line goes out in one write on an O_APPEND file
// under an exclusive lock shared with other driftdeck processes; a write that
// fails part-way (a full disk, a file size limit) is cut off again, and a line
// torn by an earlier crash is ended before the new one, so every complete
// line stays one JSON entry.
func (l *Log) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	buf := append(line, '\n')
	if endsTorn(f, st.Size()) {
		buf = append([]byte{'\n'}, buf...)
	}
	if _, err := f.Write(buf); err != nil {
		// Leave no half line behind for the next reader to choke on.
		_ = f.Truncate(st.Size())
		return fmt.Errorf("audit log: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	return nil
}

// endsTorn says whether the file does not end with a newline: a line cut off
// by a crash mid-write.
func endsTorn(f *os.File, size int64) bool {
	if size == 0 {
		return false
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return false
	}
	return last[0] != '\n'
}

// lineRoom is what a write needs free before it is let through: more than any
// audit line (a patch, the previous state, an error) takes.
const lineRoom = 1 << 20

// Writable says whether the next line can be written, before a write is made
// that would have to be audited: the file opens for appending, the file
// system has room for a line and the process's file size limit lets the file
// grow by one. A write the log cannot record is refused instead of done
// unaudited.
func (l *Log) Writable() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &fs); err == nil && uint64(fs.Bavail)*uint64(fs.Bsize) < lineRoom {
		return fmt.Errorf("audit log %s: the file system is full (%d bytes free)", l.path, uint64(fs.Bavail)*uint64(fs.Bsize))
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err == nil && uint64(st.Size())+lineRoom > lim.Cur {
		return fmt.Errorf("audit log %s: the file size limit (%d bytes) leaves no room for another line", l.path, lim.Cur)
	}
	return nil
}
