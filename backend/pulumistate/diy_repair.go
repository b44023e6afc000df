package pulumistate

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
)

// BreakLock plans deleting the stack's lock objects, as `pulumi cancel`
// does on DIY backends. Without force it refuses while a holder still runs
// on this host.
func (d *DIY) BreakLock(ctx context.Context, ref StackRef, force bool) (*Repair, error) {
	keys, err := d.list(ctx, d.lockDir(ref), "/")
	if err != nil {
		return nil, err
	}
	planned := map[string][]byte{}
	r := &Repair{}
	now := time.Now()
	for _, k := range keys {
		if !strings.HasSuffix(k, ".json") {
			continue
		}
		l, body, err := d.readLock(ctx, k)
		if err != nil {
			return nil, err
		}
		if l.Holder == HolderAlive && !force {
			return nil, fmt.Errorf("stack %s is locked by pid %d on this host, which is still running: stop it, or force", ref, l.PID)
		}
		planned[k] = body
		r.Changes = append(r.Changes, "delete "+k+": "+describeLock(l, now))
	}
	if len(planned) == 0 {
		return nil, fmt.Errorf("stack %s is not locked: %w", ref, ErrNothingToDo)
	}
	r.Summary = fmt.Sprintf("break the lock of %s (%d lock object(s))", ref, len(planned))
	r.apply = func(ctx context.Context) error {
		for k, body := range planned {
			now, err := d.reread(ctx, k)
			if errors.Is(err, objstore.ErrNotFound) {
				return fmt.Errorf("lock %s is gone since it was shown (its holder released it?): nothing deleted", k)
			}
			if err != nil {
				return err
			}
			if !bytes.Equal(now, body) {
				return fmt.Errorf("lock %s changed since it was shown: nothing deleted", k)
			}
		}
		for k := range planned {
			if err := d.bucket.Delete(ctx, k); err != nil {
				return err
			}
		}
		return nil
	}
	return r, nil
}

// reread reads key again just before a repair writes. When it cannot, it
// tells the bucket gone (unreachable, unmounted, emptied: nothing of the
// state is left to read) from the key gone (an error wrapping
// objstore.ErrNotFound); either way the repair writes nothing.
func (d *DIY) reread(ctx context.Context, key string) ([]byte, error) {
	body, err := d.bucket.ReadAll(ctx, key)
	if err == nil {
		return body, nil
	}
	if errors.Is(err, objstore.ErrNotFound) {
		if left, lerr := d.bucket.List(ctx, ".pulumi/", "/"); lerr == nil && len(left) > 0 {
			return nil, err
		}
	}
	return nil, fmt.Errorf("the state bucket %s cannot be read any more (unreachable, unmounted or emptied?): %v: nothing written", d.name, err)
}

func describeLock(l Lock, now time.Time) string {
	who := fmt.Sprintf("held by pid %d (%s@%s) since %s, %s ago", l.PID, l.User, l.Host,
		l.Since.Format(time.RFC3339), l.Age(now).Round(time.Second))
	switch l.Holder {
	case HolderDead:
		return who + "; that process is gone"
	case HolderAlive:
		return who + "; that process is STILL RUNNING"
	}
	return who + "; another host: driftdeck cannot tell whether it still runs"
}

// ClearPending plans removing pending_operations from the stack's
// checkpoint. The rewrite keeps every other byte of the checkpoint (it
// changes no resource, calls no provider and needs no secrets passphrase),
// keeps a copy under .pulumi/backups/ as the CLI does, and holds the
// stack's lock while it writes. `pulumi refresh --clear-pending-creates`
// would also refresh every resource from its provider, and `stack export |
// import` re-serializes the whole state; both need the program's
// credentials. The stack must not be locked.
func (d *DIY) ClearPending(ctx context.Context, ref StackRef) (*Repair, error) {
	key, err := d.checkpointKey(ctx, ref)
	if err != nil {
		return nil, err
	}
	stored, err := d.bucket.ReadAll(ctx, key)
	if err != nil {
		return nil, err
	}
	dep, err := readCheckpoint(stored)
	if err != nil {
		return nil, err
	}
	if len(dep.PendingOperations) == 0 {
		return nil, fmt.Errorf("stack %s has no pending operations: %w", ref, ErrNothingToDo)
	}
	if locks, err := d.locks(ctx, ref); err != nil {
		return nil, err
	} else if len(locks) > 0 {
		return nil, fmt.Errorf("stack %s is locked (%s): break the lock first", ref, locks[0].ID)
	}
	plain, err := decompress(stored)
	if err != nil {
		return nil, err
	}
	cleared, found, err := withoutMember(plain, "checkpoint", "latest", "pending_operations")
	if err != nil || !found {
		return nil, fmt.Errorf("%s: pending_operations not where expected (%v)", key, err)
	}
	rewritten, err := recompress(stored, cleared)
	if err != nil {
		return nil, err
	}
	backup := d.backupKey(ref, key, time.Now())
	r := &Repair{Summary: fmt.Sprintf("clear %d pending operation(s) of %s", len(dep.PendingOperations), ref)}
	for _, op := range pendingOps(dep) {
		line := "forget " + op.Type + " " + op.URN
		if op.Type == "creating" {
			line += " (it may exist in its provider without being tracked: check, then import or delete it)"
		}
		r.Changes = append(r.Changes, line)
	}
	r.Changes = append(r.Changes,
		"copy "+key+" to "+backup,
		"rewrite "+key+" without pending_operations (every other byte kept)")
	r.apply = func(ctx context.Context) error {
		release, err := d.lock(ctx, ref)
		if err != nil {
			return err
		}
		defer release()
		now, err := d.reread(ctx, key)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, stored) {
			return fmt.Errorf("%s changed since it was shown: nothing rewritten", key)
		}
		if err := d.bucket.WriteAll(ctx, backup, stored); err != nil {
			return err
		}
		return d.bucket.WriteAll(ctx, key, rewritten)
	}
	return r, nil
}

// backupKey names a backup the way the CLI does:
// .pulumi/backups/<dir>/<stack>.<unix nanos>.json[.gz|.zst].
func (d *DIY) backupKey(ref StackRef, key string, at time.Time) string {
	file := path.Base(key)
	name, _ := stackName(file)
	return fmt.Sprintf(".pulumi/backups/%s/%s.%d%s", d.dir(ref), name, at.UnixNano(), strings.TrimPrefix(file, name))
}

// lock takes the stack's lock the way the CLI does (write a lock object,
// then make sure it is the only one) and returns its release.
func (d *DIY) lock(ctx context.Context, ref StackRef) (func(), error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	key := d.lockDir(ref) + hex.EncodeToString(id[:]) + ".json"
	f := lockFile{PID: os.Getpid(), Timestamp: time.Now()}
	if u, err := user.Current(); err == nil {
		f.Username = u.Username
	}
	f.Hostname = d.host
	body, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	if err := d.bucket.WriteAll(ctx, key, body); err != nil {
		return nil, err
	}
	release := func() { _ = d.bucket.Delete(context.WithoutCancel(ctx), key) }
	locks, err := d.locks(ctx, ref)
	if err == nil && len(locks) != 1 {
		err = errors.New("another process locked the stack meanwhile")
	}
	if err != nil {
		release()
		return nil, fmt.Errorf("stack %s: %w", ref, err)
	}
	return release, nil
}
