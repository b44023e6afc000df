package helperbin

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
)

// Call runs one request through a new helper process: it starts path with
// args, writes req as one line of JSON and keeps the helper's input open,
// then hands the helper's output to next until next reports done. Cancelling
// ctx closes that input, which a helper reads as "stop" (ReadRequest). An
// error of next, such as the end of output from a helper that died, is
// explained with the last lines the helper wrote to its stderr.
func (h Helper) Call(ctx context.Context, path string, args []string, req any, next func(*json.Decoder) (done bool, err error)) error {
	f := h.flights()
	f.begin()
	defer f.end()
	cmd := exec.Command(path, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	// A pipe of our own: StdoutPipe's end is closed by Wait, which could
	// lose the last lines of a helper that exits at once.
	stdout, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer stdout.Close()
	cmd.Stdout = w
	stderr := NewTail(4 << 10)
	cmd.Stderr = stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	exited := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = stdin.Close() // the helper stops its work
		case <-exited:
		}
	}()
	if err := json.NewEncoder(stdin).Encode(req); err != nil {
		_ = cmd.Process.Kill()
	}
	dec := json.NewDecoder(bufio.NewReader(stdout))
	var readErr error
	for {
		done, err := next(dec)
		if err != nil {
			readErr = err
			break
		}
		if done {
			break
		}
	}
	_ = stdin.Close()
	_ = cmd.Wait()
	close(exited)
	if readErr == nil {
		return nil
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		msg = readErr.Error()
	}
	err = fmt.Errorf("%s stopped: %s", h.Name, msg)
	if ctx.Err() != nil {
		err = errors.Join(ctx.Err(), err)
	}
	return err
}

// ReadRequest is the helper's side of Call: it decodes the one request from
// in and returns a context that is cancelled when in ends, which is how the
// caller says stop.
func ReadRequest(in io.Reader, req any) (context.Context, context.CancelFunc, error) {
	dec := json.NewDecoder(in)
	if err := dec.Decode(req); err != nil {
		return nil, nil, fmt.Errorf("reading the request: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, io.MultiReader(dec.Buffered(), in))
		cancel()
	}()
	return ctx, cancel, nil
}
