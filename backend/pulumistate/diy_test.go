package pulumistate

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore/objstoretest"
	"github.com/klauspost/compress/zstd"
)

// A checkpoint as the CLI writes it: compact JSON, one pending create.
const checkpointJSON = `{"version":3,"checkpoint":{"stack":"organization/app/dev","latest":{"manifest":{"time":"2026-11-29T10:00:00Z","magic":"m","version":"v3.274.1"},` +
	`"secrets_providers":{"type":"passphrase","state":{"salt":"v1:abc"}},` +
	`"resources":[{"urn":"urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev","custom":false,"type":"pulumi:pulumi:Stack"}],` +
	`"pending_operations":[{"resource":{"urn":"urn:pulumi:dev::app::slow:index:Thing::t","custom":true,"type":"slow:index:Thing"},"type":"creating"}],"metadata":{}}}}`

func write(t *testing.T, root, key string, body []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
}

func lockJSON(pid int, host string, at time.Time) []byte {
	b, _ := json.Marshal(lockFile{PID: pid, Username: "alice", Hostname: host, Timestamp: at})
	return b
}

func openDIY(t *testing.T, root string) Backend {
	t.Helper()
	b, err := Open(context.Background(), "file://"+root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// bothWays runs test on a bucket opened in this process, then on one read
// through the driftdeck-state helper, as s3://, gs:// and azblob:// buckets
// are: both must read and repair the same way.
func bothWays(t *testing.T, test func(t *testing.T, open func(*testing.T, string) Backend)) {
	t.Run("in process", func(t *testing.T) { test(t, openDIY) })
	t.Run("through the helper", func(t *testing.T) { test(t, openThroughHelper) })
}

func openThroughHelper(t *testing.T, root string) Backend {
	t.Helper()
	ctx := context.Background()
	u, err := bucketURL("file://" + root)
	if err != nil {
		t.Fatal(err)
	}
	store, err := objstore.Dial(ctx, objstoretest.Helper(t), u)
	if err != nil {
		t.Fatal(err)
	}
	b, err := openDIYOn(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func TestDIYLegacyLayoutWithGzipCheckpoint(t *testing.T) {
	bothWays(t, func(t *testing.T, openDIY func(*testing.T, string) Backend) {
		root := t.TempDir()
		write(t, root, ".pulumi/stacks/dev.json.gz", gz([]byte(checkpointJSON)))
		write(t, root, ".pulumi/stacks/dev.json.bak", []byte(`not a stack`))
		write(t, root, ".pulumi/locks/dev/1.json", lockJSON(deadPID(t), "elsewhere", time.Now().Add(-time.Hour)))
		write(t, root, ".pulumi/history/dev/dev-1795000000000000000.history.json", []byte(`{"kind":"update","startTime":1795000000,"result":"succeeded","endTime":1795000005}`))
		write(t, root, ".pulumi/history/dev/dev-1796000000000000000.history.json.gz", gz([]byte(`{"kind":"update","startTime":1796000000,"result":"failed","endTime":1796000009,"resourceChanges":{"create":1}}`)))
		write(t, root, ".pulumi/history/dev/dev-1796000000000000000.checkpoint.json", []byte(`{}`))

		stacks, err := openDIY(t, root).Stacks(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(stacks) != 1 {
			t.Fatalf("stacks = %+v; want dev only", stacks)
		}
		s := stacks[0]
		if s.Ref != (StackRef{Stack: "dev"}) || s.Resources != 1 || len(s.Pending) != 1 || s.Pending[0].Type != "creating" {
			t.Errorf("stack = %+v", s)
		}
		if s.LastUpdate == nil || s.LastUpdate.Result != "failed" || s.LastUpdate.Changes["create"] != 1 || s.LastUpdate.End.Unix() != 1796000009 {
			t.Errorf("last update = %+v; want the newest history entry", s.LastUpdate)
		}
		if len(s.Locks) != 1 || s.Locks[0].Holder != HolderUnknown || s.Locks[0].Age(time.Now()) < time.Hour {
			t.Errorf("lock = %+v; want one from another host, an hour old", s.Locks)
		}
	})
}

func TestDIYRefusesANewerLayout(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".pulumi/meta.yaml", []byte("version: 2\n"))
	if _, err := Open(context.Background(), "file://"+root); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("opening a layout version 2 bucket: %v", err)
	}
}

func TestDIYBreakLockRespectsARunningHolder(t *testing.T) {
	bothWays(t, func(t *testing.T, openDIY func(*testing.T, string) Backend) {
		root := t.TempDir()
		host, _ := os.Hostname()
		write(t, root, ".pulumi/meta.yaml", []byte("version: 1\n"))
		write(t, root, ".pulumi/stacks/app/dev.json", []byte(checkpointJSON))
		lockKey := ".pulumi/locks/organization/app/dev/live.json"
		write(t, root, lockKey, lockJSON(os.Getpid(), host, time.Now()))
		b := openDIY(t, root)
		ctx := context.Background()
		ref := StackRef{Org: "organization", Project: "app", Stack: "dev"}

		// A lock older than the process now running under its pid: the pid
		// was reused, the holder is gone.
		write(t, root, lockKey, lockJSON(os.Getpid(), host, time.Now().Add(-time.Hour)))
		if info, err := b.Stack(ctx, ref); err != nil || info.Locks[0].Holder != HolderDead {
			t.Errorf("lock with a reused pid: %+v, %v; want holder dead", info.Locks, err)
		}
		write(t, root, lockKey, lockJSON(os.Getpid(), host, time.Now()))
		info, err := b.Stack(ctx, ref)
		if err != nil || len(info.Locks) != 1 || info.Locks[0].Holder != HolderAlive {
			t.Fatalf("lock of this very process: %+v, %v; want holder alive", info.Locks, err)
		}
		if _, err := b.BreakLock(ctx, ref, false); err == nil || !strings.Contains(err.Error(), "still running") {
			t.Errorf("breaking a live lock without force: %v", err)
		}
		if _, err := b.ClearPending(ctx, ref); err == nil || !strings.Contains(err.Error(), "break the lock first") {
			t.Errorf("clearing pending operations of a locked stack: %v", err)
		}
		r, err := b.BreakLock(ctx, ref, true)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Changes[0], "STILL RUNNING") {
			t.Errorf("forced plan does not warn: %q", r.Changes)
		}
		// The lock is replaced before the user confirms: nothing is deleted.
		write(t, root, lockKey, lockJSON(deadPID(t), host, time.Now()))
		if err := r.Apply(ctx); err == nil {
			t.Error("applied a plan for a lock that changed")
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(lockKey))); err != nil {
			t.Errorf("the changed lock was deleted: %v", err)
		}
		r, err = b.BreakLock(ctx, ref, false)
		if err != nil {
			t.Fatalf("breaking a dead holder's lock: %v", err)
		}
		if err := r.Apply(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.BreakLock(ctx, ref, false); !errors.Is(err, ErrNothingToDo) {
			t.Errorf("breaking an absent lock: %v", err)
		}
	})
}

func TestDIYClearPendingKeepsZstdAndRefusesAMovedCheckpoint(t *testing.T) {
	bothWays(t, func(t *testing.T, openDIY func(*testing.T, string) Backend) {
		root := t.TempDir()
		enc, _ := zstd.NewWriter(nil)
		stored := enc.EncodeAll([]byte(checkpointJSON), nil)
		write(t, root, ".pulumi/meta.yaml", []byte("version: 1\n"))
		write(t, root, ".pulumi/stacks/app/dev.json.zst", stored)
		b := openDIY(t, root)
		ctx := context.Background()
		ref := StackRef{Org: "organization", Project: "app", Stack: "dev"}

		r, err := b.ClearPending(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		write(t, root, ".pulumi/stacks/app/dev.json.zst", enc.EncodeAll([]byte(checkpointJSON+" "), nil))
		if err := r.Apply(ctx); err == nil {
			t.Fatal("rewrote a checkpoint that changed after the plan")
		}

		r, err = b.ClearPending(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(ctx); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(root, ".pulumi", "stacks", "app", "dev.json.zst"))
		plain, err := decompress(got)
		if err != nil || !bytes.HasPrefix(got, zstdMagic) {
			t.Fatalf("the checkpoint is no longer zstd: %v", err)
		}
		want := strings.Replace(checkpointJSON+" ", `,"pending_operations":[{"resource":{"urn":"urn:pulumi:dev::app::slow:index:Thing::t","custom":true,"type":"slow:index:Thing"},"type":"creating"}]`, "", 1)
		if string(plain) != want {
			t.Errorf("rewritten checkpoint:\n%s\nwant\n%s", plain, want)
		}
		locks, _ := filepath.Glob(filepath.Join(root, ".pulumi", "locks", "organization", "app", "dev", "*.json"))
		backups, _ := filepath.Glob(filepath.Join(root, ".pulumi", "backups", "app", "dev", "dev.*.json.zst"))
		if len(locks) != 0 || len(backups) != 1 {
			t.Errorf("locks left %v, backups %v; want no lock and one backup", locks, backups)
		}
	})
}

func TestWithoutMember(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"a":1,"p":[2],"b":3}`, `{"a":1,"b":3}`},
		{`{"p":[2],"b":3}`, `{"b":3}`},
		{`{"a":1,"p":[2]}`, `{"a":1}`},
		{`{"p":{"x":1}}`, `{}`},
		{"{\n  \"a\": 1,\n  \"p\": [2]\n}", "{\n  \"a\": 1\n}"},
		{"{\n  \"p\": [2] ,\n  \"a\": 1\n}", "{\n  \n  \"a\": 1\n}"},
	} {
		got, found, err := withoutMember([]byte(c.doc), "p")
		if err != nil || !found || string(got) != c.want {
			t.Errorf("withoutMember(%s) = %s, %v, %v; want %s", c.doc, got, found, err, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("withoutMember(%s) is not JSON: %s", c.doc, got)
		}
	}
	doc := `{"checkpoint":{"latest":{"pending_operations":[],"resources":[]},"pending_operations":"kept"}}`
	got, _, _ := withoutMember([]byte(doc), "checkpoint", "latest", "pending_operations")
	if want := `{"checkpoint":{"latest":{"resources":[]},"pending_operations":"kept"}}`; string(got) != want {
		t.Errorf("nested: %s; want %s", got, want)
	}
	if _, found, _ := withoutMember([]byte(`{"a":{"b":1}}`), "a", "p"); found {
		t.Error("found a member that is not there")
	}
}

// s3://, gs:// and azblob:// buckets need the helper; without it the user
// is told what needs it and how to install it, and the bucket URL's query
// (which can hold settings such as endpoints) is not repeated.
func TestDIYCloudBucketWithoutTheHelper(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(objstore.HelperEnv, "")
	_, err := Open(context.Background(), "s3://team-state/pulumi?region=eu-west-1&endpoint=internal.example")
	if err == nil || !strings.Contains(err.Error(), "s3://team-state needs the driftdeck-state helper") ||
		!strings.Contains(err.Error(), "go install") || strings.Contains(err.Error(), "internal.example") {
		t.Fatalf("opening an S3 bucket without the helper: %v", err)
	}
}

// Through the helper an s3:// bucket reaches the real S3 driver: here an
// endpoint nobody listens on, whose failure comes back as Open's error.
func TestDIYS3BucketReachesTheDriverThroughTheHelper(t *testing.T) {
	t.Setenv(objstore.HelperEnv, objstoretest.Helper(t))
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	start := time.Now()
	_, err := Open(context.Background(), "s3://team-state?region=eu-west-1&endpoint=http://127.0.0.1:9&use_path_style=true")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:9") {
		t.Fatalf("opening an S3 bucket at a closed endpoint: %v; want the driver's connection error", err)
	}
	t.Logf("%v after %v", err, time.Since(start))
}
