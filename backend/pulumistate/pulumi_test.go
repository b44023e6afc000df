package pulumistate

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
	"github.com/driftdeck/driftdeck/backend/testkit/testproc"
	"github.com/driftdeck/driftdeck/backend/testkit/tests3"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// automation returns the Automation API's handle on bin.
func automation(t *testing.T, bin string) auto.PulumiCommand {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(bin)
	if err := os.Symlink(abs, filepath.Join(root, "bin", "pulumi")); err != nil {
		t.Fatal(err)
	}
	cmd, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// buildSlowProvider builds testdata/slowprovider as a plugin in dir.
func buildSlowProvider(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build",
		"-o", filepath.Join(dir, "pulumi-resource-slow"), "./testdata/slowprovider").CombinedOutput()
	if err != nil {
		t.Fatalf("building the test provider: %v\n%s", err, out)
	}
}

type thing struct{ pulumi.CustomResourceState }

// The key scenario: an update killed while a resource is being created
// leaves the stack locked with a pending operation; driftdeck shows both,
// breaks the lock, clears the operation, and the next update succeeds.
func TestPulumiKilledUpIsUnstuck(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	killedUpIsUnstuck(t, "file://"+state, state, nil)
}

// The same on Pulumi's s3:// backend, on a real S3 server (versitygw):
// its lock and checkpoint are read and repaired through the
// driftdeck-state helper; the bucket is a directory of the server, where
// the checkpoint is checked byte for byte.
func TestPulumiKilledUpOnS3IsUnstuck(t *testing.T) {
	s3 := tests3.Start(t, "pulumistate")
	env := map[string]string{}
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v) // for the helper driftdeck runs
		env[k] = v     // for pulumi
	}
	t.Setenv(objstore.HelperEnv, testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-state"))
	killedUpIsUnstuck(t, s3.PulumiURL("pulumistate"), filepath.Join(s3.Dir, "pulumistate"), env)
}

// killedUpIsUnstuck plays the key scenario on the backend at url, whose
// files are in the directory state; env is more of pulumi's environment.
func killedUpIsUnstuck(t *testing.T, url, state string, env map[string]string) {
	bin := pulumiruntest.CLI(t)
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	for _, d := range []string{plugins, filepath.Join(dir, "work")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	buildSlowProvider(t, plugins)
	// The killed update's plugin ends with its engine, and the others with
	// their updates: none is left serving.
	t.Cleanup(func() { testproc.NoneLeftUnder(t, plugins, 10*time.Second) })

	ctx := context.Background()
	program := func(ctx *pulumi.Context) error {
		before, err := pulumi.NewStash(ctx, "before", &pulumi.StashArgs{Input: pulumi.String("x")})
		if err != nil {
			return err
		}
		var th thing
		return ctx.RegisterResource("slow:index:Thing", "thing", pulumi.Map{"value": pulumi.String("v")}, &th,
			pulumi.DependsOn([]pulumi.Resource{before}))
	}
	project := workspace.Project{
		Name:    tokens.PackageName("stuck"),
		Runtime: workspace.NewProjectRuntimeInfo("go", nil),
		Plugins: &workspace.Plugins{Providers: []workspace.PluginOptions{{Name: "slow", Path: plugins}}},
	}
	vars := map[string]string{
		"PULUMI_BACKEND_URL":       url,
		"PULUMI_CONFIG_PASSPHRASE": "test",
		"PULUMI_SKIP_UPDATE_CHECK": "true",
		"SLOW_CREATE":              "5m",
	}
	maps.Copy(vars, env)
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", "stuck", program,
		auto.Project(project), auto.WorkDir(filepath.Join(dir, "work")), auto.PulumiHome(filepath.Join(dir, "home")),
		auto.Pulumi(automation(t, bin)),
		auto.EnvVars(vars))
	if err != nil {
		t.Fatal(err)
	}

	be, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ref := StackRef{Org: "organization", Project: "stuck", Stack: "dev"}

	upDone := make(chan error, 1)
	start := time.Now()
	go func() { _, err := stack.Up(ctx); upDone <- err }()

	// Wait until the thing's create is in flight: locked, with that pending
	// operation. The stash's create is pending too for a moment, and a kill
	// then would leave nothing pending.
	var live StackInfo
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		live, err = be.Stack(ctx, ref)
		if err == nil && len(live.Locks) == 1 && len(live.Pending) == 1 && strings.HasSuffix(live.Pending[0].URN, "slow:index:Thing::thing") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the update never reached the slow create: %+v, %v", live, err)
		}
	}
	t.Logf("create in flight %v after the update started", time.Since(start))
	lock := live.Locks[0]
	if lock.Holder != HolderAlive {
		t.Errorf("while the update runs its lock holder is %s; want alive", lock.Holder)
	}
	if err := syscall.Kill(lock.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the CLI (pid %d): %v", lock.PID, err)
	}
	if err := <-upDone; err == nil {
		t.Fatal("the killed update succeeded")
	}

	// What driftdeck shows of the stuck stack.
	stuck, err := be.Stack(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	me, _ := user.Current()
	host, _ := os.Hostname()
	if len(stuck.Locks) != 1 {
		t.Fatalf("locks after the kill: %+v", stuck.Locks)
	}
	l := stuck.Locks[0]
	if l.PID != lock.PID || l.User != me.Username || l.Host != host || l.Holder != HolderDead || l.Age(time.Now()) <= 0 {
		t.Errorf("lock = %+v; want pid %d, %s@%s, holder dead, a positive age", l, lock.PID, me.Username, host)
	}
	if len(stuck.Pending) != 1 || stuck.Pending[0].Type != "creating" || !strings.HasSuffix(stuck.Pending[0].URN, "slow:index:Thing::thing") {
		t.Errorf("pending = %+v; want the thing's create", stuck.Pending)
	}
	listed, err := be.Stacks(ctx)
	if err != nil || len(listed) != 1 || listed[0].Ref != ref || len(listed[0].Locks) != 1 {
		t.Errorf("Stacks() = %+v, %v; want the stuck stack with its lock", listed, err)
	}

	// The lock really blocks the next update.
	stack.Workspace().SetEnvVar("SLOW_CREATE", "0s")
	if _, err := stack.Up(ctx); !auto.IsConcurrentUpdateError(err) {
		t.Fatalf("update of the locked stack: %v; want a concurrent update error", err)
	}

	breakLock, err := be.BreakLock(ctx, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(breakLock.Changes) != 1 || !strings.Contains(breakLock.Changes[0], l.ID) || !strings.Contains(breakLock.Changes[0], "that process is gone") {
		t.Errorf("break-lock plan = %q", breakLock.Changes)
	}
	t.Logf("%s:\n  %s", breakLock.Summary, strings.Join(breakLock.Changes, "\n  "))
	if err := breakLock.Apply(ctx); err != nil {
		t.Fatal(err)
	}

	clear, err := be.ClearPending(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s:\n  %s", clear.Summary, strings.Join(clear.Changes, "\n  "))
	if !strings.Contains(strings.Join(clear.Changes, "\n"), "forget creating "+stuck.Pending[0].URN) {
		t.Errorf("clear plan does not name the operation: %q", clear.Changes)
	}
	checkpoint := filepath.Join(state, ".pulumi", "stacks", "stuck", "dev.json")
	before, _ := os.ReadFile(checkpoint)
	if err := clear.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(checkpoint)
	want, _, _ := withoutMember(before, "checkpoint", "latest", "pending_operations")
	if !bytes.Equal(after, want) || bytes.Contains(after, []byte("pending_operations")) {
		t.Errorf("the checkpoint changed beyond its pending operations")
	}
	backups, _ := filepath.Glob(filepath.Join(state, ".pulumi", "backups", "stuck", "dev", "dev.*.json"))
	var backedUp bool
	for _, b := range backups {
		if body, _ := os.ReadFile(b); bytes.Equal(body, before) {
			backedUp = true
		}
	}
	if !backedUp {
		t.Errorf("no backup of the original checkpoint among %v", backups)
	}

	start = time.Now()
	if _, err := stack.Up(ctx); err != nil {
		t.Fatalf("retried update: %v", err)
	}
	t.Logf("retried update took %v", time.Since(start))
	done, err := be.Stack(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Locks) != 0 || len(done.Pending) != 0 || done.LastUpdate == nil || done.LastUpdate.Result != "succeeded" || done.Resources < 4 {
		t.Errorf("after the retry: %+v (last update %+v)", done, done.LastUpdate)
	}
	if !errors.Is(func() error { _, err := be.ClearPending(ctx, ref); return err }(), ErrNothingToDo) {
		t.Error("clearing a stack without pending operations was not refused")
	}
}
