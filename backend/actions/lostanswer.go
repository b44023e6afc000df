package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// readBackBudget bounds how long a write whose answer was lost is read
// back before its outcome is reported unknown.
const readBackBudget = 10 * time.Second

// answerLost tells a write whose answer never arrived (the connection
// dropped, the request was cancelled or timed out on the way) from one the
// server answered: only the server's answer says whether it was applied.
func answerLost(err error) bool {
	var status apierrors.APIStatus
	return !errors.As(err, &status)
}

// readBackLost reads the unit again after the answer to its patch was lost:
// the object after the write when it holds what the patch writes, an error
// saying it was not applied when it does not, and writeguard.Unknown when it
// cannot be read within readBackBudget. It is never a guess.
func (e *Executor) readBackLost(ctx context.Context, c *kube.Cluster, req Request, p *Plan, lost error) (map[string]any, error) {
	// The read back outlives a cancelled request: its outcome must be known.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackBudget)
	defer cancel()
	var readErr error
	for {
		obj, err := e.get(rctx, c, req.Key)
		if err == nil {
			if holds(obj, p.Patch) {
				return obj, nil
			}
			return nil, fmt.Errorf("writing %s: the connection dropped before the cluster answered (%v); read back, it does not hold the write: not applied", req.Key.Ref(), lost)
		}
		if writeguard.IsRefusal(err) { // gone meanwhile
			return nil, fmt.Errorf("writing %s: the connection dropped before the cluster answered (%v), and it is gone now: %w", req.Key.Ref(), lost, err)
		}
		readErr = err
		select {
		case <-rctx.Done():
			return nil, &writeguard.Unknown{Err: fmt.Errorf("writing %s: the connection dropped before the cluster answered (%w), and it could not be read back (%w): whether it was applied is not known; look at it before trying again", req.Key.Ref(), lost, readErr)}
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// holds reports whether obj shows every change a patch makes: each added
// or replaced value in place, each removed path absent. (Its tests, the
// preconditions, no longer hold once it was applied.) An object the patch
// wrote whole (the annotations of an object that had none) holds when its
// keys are there: another writer may have added its own before the read.
func holds(obj map[string]any, ops []Op) bool {
	for _, op := range ops {
		got, present := lookupPointer(obj, op.Path)
		switch op.Op {
		case "add", "replace":
			if !present || !includesJSON(got, op.Value) {
				return false
			}
		case "remove":
			if present {
				return false
			}
		}
	}
	return true
}

// lookupPointer follows an RFC 6901 JSON pointer through decoded JSON.
func lookupPointer(v any, pointer string) (any, bool) {
	if pointer == "" {
		return v, true
	}
	for _, seg := range strings.Split(pointer[1:], "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// sameJSON compares a decoded value with a Go value as their JSON.
func sameJSON(decoded, value any) bool {
	want, ok := decodedJSON(value)
	return ok && reflect.DeepEqual(decoded, want)
}

// includesJSON reports whether a decoded value includes a Go value, as
// their JSON: objects key by key (more keys are fine), anything else equal.
func includesJSON(decoded, value any) bool {
	want, ok := decodedJSON(value)
	return ok && includes(decoded, want)
}

// decodedJSON is a Go value as decoding its JSON gives it.
func decodedJSON(value any) (any, bool) {
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return v, true
}

func includes(got, want any) bool {
	w, isObject := want.(map[string]any)
	if !isObject {
		return reflect.DeepEqual(got, want)
	}
	g, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range w {
		if gv, present := g[k]; !present || !includes(gv, v) {
			return false
		}
	}
	return true
}
