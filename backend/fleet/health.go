package fleet

import (
	"fmt"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/driftdeck/driftdeck/backend/store"
)

// health turns the watches' list/watch outcomes into the context's status.
type health struct {
	store   *store.Store
	context string
	pending atomic.Int32
	// abandoned is set when the context's discovery failed and its
	// watches were called off: they no longer make it synced.
	abandoned atomic.Bool
	// discovered is set once discovery answered. Until then discovery
	// speaks for the context: the watches started beside it (ADR 0022)
	// would otherwise reset "disconnected since" and replace the message on
	// every retry of a cluster nothing answers.
	discovered atomic.Bool
	// down is 1 while the context is known to be disconnected; it keeps the
	// hot path (every watch event) from taking the store's lock for nothing.
	down    atomic.Bool
	last    atomic.Int64 // unix nanos of the last event, published at most once a second
	refused chan<- error
}

func (h *health) Connected() {
	if h.down.Swap(false) {
		h.store.UpdateStatus(h.context, func(s *store.ContextStatus) {
			s.Connected, s.Error, s.Since, s.LastEvent = true, "", time.Now(), time.Now()
		})
	}
}

func (h *health) Disconnected(err error) {
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		h.refusedBy(err)
		return
	}
	if !h.discovered.Load() {
		return
	}
	first := !h.down.Swap(true)
	h.store.UpdateStatus(h.context, func(s *store.ContextStatus) {
		if first {
			s.Since = time.Now()
		}
		s.Connected, s.Error = false, err.Error()
	})
}

// refusedBy records a refusal no retry mends: the server answers, it
// refuses. Not a lost connection.
func (h *health) refusedBy(err error) {
	h.store.UpdateStatus(h.context, func(s *store.ContextStatus) { s.Error = err.Error() })
	select {
	case h.refused <- fmt.Errorf("context %q: %w", h.context, err):
	default:
	}
}

// firstListFailed tells a command waiting for the first lists why one
// cannot come, and records it as a disconnection.
func (h *health) firstListFailed(err error) {
	select {
	case h.refused <- fmt.Errorf("context %q: %w", h.context, err):
	default:
	}
	h.Disconnected(err)
}

// unreadable records a resource the identity may not list.
func (h *health) unreadable(u store.Unreadable) {
	h.store.UpdateStatus(h.context, func(s *store.ContextStatus) { s.AddUnreadable(u) })
}

func (h *health) Event() {
	now := time.Now()
	prev := h.last.Load()
	if now.UnixNano()-prev < int64(time.Second) || !h.last.CompareAndSwap(prev, now.UnixNano()) {
		return
	}
	h.store.UpdateStatus(h.context, func(s *store.ContextStatus) { s.LastEvent = now })
}

func (h *health) markSynced() {
	h.store.UpdateStatus(h.context, func(s *store.ContextStatus) { s.Synced = true })
}
