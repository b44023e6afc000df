package objstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Serve opens the bucket with open and answers requests from in on out
// until in ends. A bucket that cannot be opened is reported in the hello
// and returned.
func Serve(ctx context.Context, in io.Reader, out io.Writer, open func(context.Context) (Store, error)) error {
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	send := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		return w.Flush()
	}
	store, err := open(ctx)
	if err != nil {
		_ = send(hello{Protocol: protocolVersion, Error: err.Error()})
		return err
	}
	defer store.Close()
	if err := send(hello{Protocol: protocolVersion}); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReader(in))
	for {
		var req request
		if err := dec.Decode(&req); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading a request: %w", err)
		}
		if err := send(answer(ctx, store, req)); err != nil {
			return err
		}
	}
}

func answer(ctx context.Context, store Store, req request) reply {
	var r reply
	var err error
	switch req.Op {
	case "read":
		r.Body, err = store.ReadAll(ctx, req.Key)
		r.NotFound = errors.Is(err, ErrNotFound)
	case "write":
		err = store.WriteAll(ctx, req.Key, req.Body)
	case "delete":
		err = store.Delete(ctx, req.Key)
	case "list":
		r.Objects, err = store.List(ctx, req.Prefix, req.Delimiter)
	default:
		err = fmt.Errorf("unknown operation %q", req.Op)
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}
