package objstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/driftdeck/driftdeck/backend/internal/helperbin"
)

// HelperName is the helper's executable name.
const HelperName = "driftdeck-state"

// HelperEnv names the variable that points at the helper explicitly.
const HelperEnv = "DRIFTDECK_STATE_HELPER"

var stateHelper = helperbin.Helper{Name: HelperName, Env: HelperEnv,
	Holds: "the S3, Google Cloud and Azure storage drivers"}

// FindHelper locates the helper (helperbin.Helper.Find); why says what
// needs it, for the error.
func FindHelper(why string) (string, error) { return stateHelper.Find(why) }

// helper is a Store served by a helper process. Requests are answered in
// order, one at a time.
type helper struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	enc    *json.Encoder
	dec    *json.Decoder
	stderr *helperbin.Tail
	exited chan struct{} // closed once the process has been waited for
	broken error         // set once the process cannot be used any more
}

// Dial starts the helper at path on the bucket rawURL and waits for its
// hello: a bucket that cannot be opened (a bad URL, no credentials) is an
// error here. The helper inherits the environment, cloud credentials
// included.
func Dial(ctx context.Context, path, rawURL string) (Store, error) {
	cmd := exec.Command(path, "serve", rawURL)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A pipe of our own, not StdoutPipe: Wait closes that one as soon as the
	// process exits, which would lose the last reply of a helper that
	// answers and exits at once (a bucket it cannot open).
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	h := &helper{cmd: cmd, stdin: stdin, enc: json.NewEncoder(stdin), dec: json.NewDecoder(bufio.NewReader(stdout)),
		stderr: helperbin.NewTail(4 << 10), exited: make(chan struct{})}
	cmd.Stderr = h.stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	go func() { _ = cmd.Wait(); close(h.exited) }()
	h.stdout = stdout
	var hi hello
	err = h.exchange(ctx, func() error { return h.dec.Decode(&hi) })
	switch {
	case err != nil:
		h.Close()
		return nil, err
	case hi.Protocol != protocolVersion:
		h.Close()
		return nil, fmt.Errorf("%s speaks protocol %d and this driftdeck %d: install the helper of the same release", path, hi.Protocol, protocolVersion)
	case hi.Error != "":
		h.Close()
		return nil, errors.New(hi.Error)
	}
	return h, nil
}

// exchange runs talk against the helper, giving up when ctx ends: the helper
// is then stopped, since a reply left unread would answer the next request.
func (h *helper) exchange(ctx context.Context, talk func() error) error {
	if h.broken != nil {
		return h.broken
	}
	done := make(chan error, 1)
	go func() { done <- talk() }()
	select {
	case err := <-done:
		if err != nil {
			h.broken = h.failure(err)
		}
		return h.broken
	case <-ctx.Done():
		h.broken = fmt.Errorf("%s stopped: %w", HelperName, ctx.Err())
		h.kill()
		<-done
		return h.broken
	}
}

// failure explains a broken exchange with what the helper wrote to stderr.
func (h *helper) failure(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
		select {
		case <-h.exited:
		case <-time.After(time.Second):
		}
		if msg := strings.TrimSpace(h.stderr.String()); msg != "" {
			return fmt.Errorf("%s exited: %s", HelperName, msg)
		}
		return fmt.Errorf("%s exited", HelperName)
	}
	return fmt.Errorf("%s: %w", HelperName, err)
}

func (h *helper) kill() {
	_ = h.cmd.Process.Kill()
	<-h.exited
}

func (h *helper) call(ctx context.Context, req request) (reply, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var r reply
	err := h.exchange(ctx, func() error {
		if err := h.enc.Encode(req); err != nil {
			return err
		}
		return h.dec.Decode(&r)
	})
	if err != nil {
		return reply{}, err
	}
	if r.NotFound {
		return r, fmt.Errorf("%s: %w", req.Key, ErrNotFound)
	}
	if r.Error != "" {
		return r, errors.New(r.Error)
	}
	return r, nil
}

func (h *helper) ReadAll(ctx context.Context, key string) ([]byte, error) {
	r, err := h.call(ctx, request{Op: "read", Key: key})
	return r.Body, err
}

func (h *helper) WriteAll(ctx context.Context, key string, body []byte) error {
	_, err := h.call(ctx, request{Op: "write", Key: key, Body: body})
	return err
}

func (h *helper) Delete(ctx context.Context, key string) error {
	_, err := h.call(ctx, request{Op: "delete", Key: key})
	return err
}

func (h *helper) List(ctx context.Context, prefix, delimiter string) ([]Object, error) {
	r, err := h.call(ctx, request{Op: "list", Prefix: prefix, Delimiter: delimiter})
	return r.Objects, err
}

// Close ends the helper's input, which ends the helper; one that has not
// exited after a few seconds is killed.
func (h *helper) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = h.stdin.Close()
	select {
	case <-h.exited:
	case <-time.After(5 * time.Second):
		h.kill()
	}
	_ = h.stdout.Close()
	if h.broken == nil {
		h.broken = fmt.Errorf("%s: closed", HelperName)
	}
	return nil
}
