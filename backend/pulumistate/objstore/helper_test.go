package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore/objstoretest"

	_ "gocloud.dev/blob/fileblob"
)

func fileURL(dir string) string { return "file://" + dir + "?no_tmp_dir=true" }

// The helper answers every operation exactly as the bucket opened in
// process does: same bytes, same listings, same not-found.
func TestHelperAnswersLikeTheBucketInProcess(t *testing.T) {
	ctx := context.Background()
	helperDir, localDir := t.TempDir(), t.TempDir()
	remote, err := objstore.Dial(ctx, objstoretest.Helper(t), fileURL(helperDir))
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	local, err := objstore.OpenBucket(ctx, fileURL(localDir))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()

	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB: a large checkpoint
	for _, s := range []objstore.Store{remote, local} {
		for key, body := range map[string][]byte{
			".pulumi/stacks/app/dev.json":       big,
			".pulumi/stacks/app/prod.json.gz":   {0x1f, 0x8b, 0, 1},
			".pulumi/locks/organization/a.json": []byte(`{"pid":1}`),
			".pulumi/meta.yaml":                 []byte("version: 1\n"),
		} {
			if err := s.WriteAll(ctx, key, body); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Delete(ctx, ".pulumi/locks/organization/a.json"); err != nil {
			t.Fatal(err)
		}
	}

	body, err := remote.ReadAll(ctx, ".pulumi/stacks/app/dev.json")
	if err != nil || !bytes.Equal(body, big) {
		t.Errorf("reading 4 MiB back through the helper: %d bytes, %v", len(body), err)
	}
	for _, key := range []string{".pulumi/locks/organization/a.json", "absent"} {
		_, err := remote.ReadAll(ctx, key)
		if !errors.Is(err, objstore.ErrNotFound) || !strings.Contains(err.Error(), key) {
			t.Errorf("reading missing %s through the helper: %v; want not found, naming the key", key, err)
		}
	}
	for _, list := range []struct{ prefix, delimiter string }{
		{"", ""}, {".pulumi/", "/"}, {".pulumi/stacks/app/", "/"}, {".pulumi/stacks/app/dev.json", "/"}, {"nothing/", "/"},
	} {
		want, err := local.List(ctx, list.prefix, list.delimiter)
		if err != nil {
			t.Fatal(err)
		}
		got, err := remote.List(ctx, list.prefix, list.delimiter)
		if err != nil {
			t.Fatal(err)
		}
		if keys(got) != keys(want) || len(got) != len(want) {
			t.Errorf("List(%q, %q) through the helper = %s; in process %s", list.prefix, list.delimiter, keys(got), keys(want))
		}
		for i := range got {
			if !got[i].IsDir && got[i].ModTime.IsZero() {
				t.Errorf("List(%q): %s has no modification time", list.prefix, got[i].Key)
			}
		}
	}
}

func keys(objs []objstore.Object) string {
	var out []string
	for _, o := range objs {
		k := o.Key
		if o.IsDir {
			k += " (dir)"
		}
		out = append(out, k)
	}
	return strings.Join(out, ", ")
}

// A bucket the helper cannot open is an error of Dial, with the driver's
// words, and the helper is gone afterwards.
func TestHelperReportsABucketItCannotOpen(t *testing.T) {
	_, err := objstore.Dial(context.Background(), objstoretest.Helper(t), "nosuch://bucket")
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("Dial(nosuch://bucket) = %v; want the driver's error", err)
	}
}

// fakeHelper writes a shell script standing in for a helper that says
// hello and then misbehaves.
func fakeHelper(t *testing.T, then string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "driftdeck-state")
	script := "#!/bin/sh\necho '{\"protocol\":1}'\nread line\n" + then + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A helper that stops answering is stopped when the caller gives up, and
// every later call fails at once instead of reading a stale reply.
func TestHungHelperIsStoppedWhenTheCallerGivesUp(t *testing.T) {
	s, err := objstore.Dial(context.Background(), fakeHelper(t, "exec sleep 600"), "s3://bucket")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.ReadAll(ctx, "k")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ReadAll on a hung helper: %v; want the deadline", err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("gave up after %v", waited)
	}
	if _, err := s.List(context.Background(), "", ""); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("a call after the helper was stopped: %v; want it refused", err)
	}
}

// A helper that dies mid-request is reported with what it wrote to stderr.
func TestDeadHelperIsReportedWithItsLastWords(t *testing.T) {
	s, err := objstore.Dial(context.Background(), fakeHelper(t, "echo 'credentials expired' >&2; exit 3"), "s3://bucket")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.WriteAll(context.Background(), "k", []byte("v"))
	if err == nil || !strings.Contains(err.Error(), "credentials expired") {
		t.Fatalf("WriteAll on a dying helper: %v; want its stderr", err)
	}
}

// A helper of another release is refused at once.
func TestHelperOfAnotherProtocolIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "driftdeck-state")
	os.WriteFile(p, []byte("#!/bin/sh\necho '{\"protocol\":99}'\ncat >/dev/null\n"), 0o755)
	_, err := objstore.Dial(context.Background(), p, "s3://bucket")
	if err == nil || !strings.Contains(err.Error(), "protocol 99") {
		t.Fatalf("Dial to a protocol 99 helper: %v", err)
	}
}

func TestFindHelper(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(objstore.HelperEnv, "")
	_, err := objstore.FindHelper("the state bucket s3://b")
	if err == nil || !strings.Contains(err.Error(), "go install github.com/driftdeck/driftdeck/cmd/driftdeck-state") ||
		!strings.Contains(err.Error(), "s3://b") {
		t.Errorf("no helper anywhere: %v; want what needs it and how to install it", err)
	}

	onPath := t.TempDir()
	os.WriteFile(filepath.Join(onPath, objstore.HelperName), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", onPath)
	if got, err := objstore.FindHelper("x"); err != nil || got != filepath.Join(onPath, objstore.HelperName) {
		t.Errorf("helper on PATH: %q, %v", got, err)
	}

	t.Setenv(objstore.HelperEnv, filepath.Join(onPath, "missing"))
	if _, err := objstore.FindHelper("x"); err == nil || !strings.Contains(err.Error(), objstore.HelperEnv) {
		t.Errorf("%s naming a missing file: %v", objstore.HelperEnv, err)
	}
}
