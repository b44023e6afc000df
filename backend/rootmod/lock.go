package rootmod

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// lockInfo is the lock info tofu writes for every backend.
type lockInfo struct {
	ID        string    `json:"ID"`
	Operation string    `json:"Operation"`
	Info      string    `json:"Info"`
	Who       string    `json:"Who"`
	Version   string    `json:"Version"`
	Created   time.Time `json:"Created"`
	Path      string    `json:"Path"`
}

func parseLockInfo(b []byte) (*model.RootLock, error) {
	var li lockInfo
	if err := json.Unmarshal(b, &li); err != nil {
		return nil, fmt.Errorf("reading the lock info: %w", err)
	}
	return &model.RootLock{ID: li.ID, Operation: li.Operation, Info: li.Info, Who: li.Who, Version: li.Version, Created: li.Created, Path: li.Path}, nil
}

// errLockNotRead: the backend keeps its lock where driftdeck does not read
// it; tofu reports it when a run cannot take it.
type errLockNotRead struct{ backend string }

func (e errLockNotRead) Error() string {
	return fmt.Sprintf("the %s backend's lock is not read by driftdeck: a plan reports it when it cannot take the lock", e.backend)
}

// ReadLock reads the lock of r's state where its backend keeps it: nil
// when none is held. tofu has no command that shows a lock without taking
// it, and taking it, even for a moment, could fail somebody's apply.
func (t *Tofu) ReadLock(ctx context.Context, r Root) (*model.RootLock, string, error) {
	be, err := t.readBackend(r)
	if err != nil {
		return nil, "", err
	}
	var l *model.RootLock
	switch be.Type {
	case "local":
		l, err = readLocalLock(r, be)
	case "kubernetes":
		l, err = readKubernetesLock(ctx, r, be)
	case "s3":
		l, err = readS3Lock(ctx, r, be)
	default:
		err = errLockNotRead{be.Type}
	}
	return l, be.Type, err
}
