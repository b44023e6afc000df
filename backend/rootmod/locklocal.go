package rootmod

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/driftdeck/driftdeck/backend/model"
)

// localStatePath is where the local backend keeps r's state: path for the
// default workspace, <workspace_dir>/<workspace>/terraform.tfstate for
// the others, relative to the module.
func localStatePath(r Root, be backendInfo) string {
	p := be.setting("path", "", "terraform.tfstate")
	if r.Workspace != DefaultWorkspace {
		p = filepath.Join(be.setting("workspace_dir", "", "terraform.tfstate.d"), r.Workspace, "terraform.tfstate")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Dir, p)
	}
	return p
}

// readLocalLock reads the local backend's lock: tofu holds a POSIX lock
// on the state file while it runs and writes its lock info beside it. The
// kernel drops the POSIX lock when the process ends, however it ends, so a
// lock info file without it is left over from a killed run: tofu takes the
// lock over it, and so it is no lock.
func readLocalLock(r Root, be backendInfo) (*model.RootLock, error) {
	state := localStatePath(r, be)
	f, err := os.Open(state)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	probe := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &probe); err != nil {
		return nil, fmt.Errorf("probing the lock of %s: %w", state, err)
	}
	if probe.Type == unix.F_UNLCK {
		return nil, nil
	}
	dir, name := filepath.Split(state)
	info, err := os.ReadFile(filepath.Join(dir, "."+strings.TrimPrefix(name, ".")+".lock.info"))
	if err != nil {
		// Held, but the holder has not written its info yet.
		return &model.RootLock{Who: fmt.Sprintf("pid %d", probe.Pid), Path: state}, nil
	}
	l, err := parseLockInfo(info)
	if err != nil {
		return nil, err
	}
	l.Who = fmt.Sprintf("%s (pid %d)", l.Who, probe.Pid)
	return l, nil
}
