package helperbin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// echoHelper answers a request {"Mode": ...}: "echo" writes it back, "fail"
// explains itself on stderr and exits, "wait" answers only once its input
// is closed (as a helper that stops its work when cancelled).
const echoHelper = `package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func main() {
	dec := json.NewDecoder(os.Stdin)
	var req struct{ Mode string }
	if err := dec.Decode(&req); err != nil {
		os.Exit(3)
	}
	switch req.Mode {
	case "fail":
		fmt.Fprintln(os.Stderr, "the repository is gone")
		os.Exit(1)
	case "wait":
		io.Copy(io.Discard, io.MultiReader(dec.Buffered(), os.Stdin))
		fmt.Println(` + "`" + `{"Mode":"stopped"}` + "`" + `)
	default:
		json.NewEncoder(os.Stdout).Encode(req)
	}
}
`

func buildEcho(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module echo\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(echoHelper), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", "echo", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the helper: %v\n%s", err, out)
	}
	return filepath.Join(dir, "echo")
}

func callMode(ctx context.Context, path, mode string) (string, error) {
	var got struct{ Mode string }
	err := Helper{Name: "driftdeck-echo"}.Call(ctx, path, nil, struct{ Mode string }{mode}, func(dec *json.Decoder) (bool, error) {
		return true, dec.Decode(&got)
	})
	return got.Mode, err
}

func TestCallExchangesARequestAndExplainsAHelperThatDied(t *testing.T) {
	path := buildEcho(t)
	if got, err := callMode(context.Background(), path, "echo"); err != nil || got != "echo" {
		t.Errorf("echo: %q, %v", got, err)
	}
	_, err := callMode(context.Background(), path, "fail")
	if err == nil || err.Error() != "driftdeck-echo stopped: the repository is gone" {
		t.Errorf("a helper that died: %v; want its stderr", err)
	}
}

func TestCancellingACallClosesTheHelpersInput(t *testing.T) {
	path := buildEcho(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	got, err := callMode(ctx, path, "wait")
	if err != nil || got != "stopped" {
		t.Errorf("cancelled call: %q, %v; want the helper's answer after its input closed", got, err)
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("the call returned before it was cancelled")
	}
}

// A process that quits waits for the calls in flight: a helper told to stop
// is still finishing when its caller's context ends.
func TestWaitHoldsUntilTheCallsInFlightEnd(t *testing.T) {
	path := buildEcho(t)
	h := Helper{Name: "driftdeck-echo"}
	if !h.Wait(time.Second) {
		t.Fatal("no call in flight, yet Wait timed out")
	}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { _, err := callMode(ctx, path, "wait"); ended <- err }()
	// The call is in flight once the helper is started: it waits for its
	// input to close, so Wait must time out until the cancel.
	deadline := time.Now().Add(time.Minute)
	for h.Wait(50*time.Millisecond) && time.Now().Before(deadline) {
	}
	if h.Wait(200 * time.Millisecond) {
		t.Fatal("a call waiting for its input did not hold Wait")
	}
	cancel()
	if !h.Wait(time.Minute) {
		t.Fatal("the cancelled call did not end within a minute")
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("the cancelled call: %v", err)
		}
	default:
		t.Error("Wait returned before the call did")
	}
}
