package store

import "time"

// ContextStatus is the connection state of one cluster context.
type ContextStatus struct {
	Context   string
	Identity  string // who the cluster says we are
	Connected bool
	// LastEvent is when data last arrived from the cluster.
	LastEvent time.Time
	// Since is when the connection state last changed.
	Since time.Time
	// Error is the last connection error, while disconnected.
	Error string
	// Engines says, per engine, whether its resources exist in the cluster
	// ("" when they do) or why not.
	Missing map[string]string
	Synced  bool // every watch delivered its initial list
	// Lists counts the complete lists the watches received, the first ones
	// included: more than one per watch means the watch was relisted.
	Lists int
}

// Stale reports whether the context's data may be out of date.
func (c ContextStatus) Stale() bool { return !c.Connected }

// SetStatus records a context's connection state.
func (s *Store) SetStatus(st ContextStatus) {
	s.mu.Lock()
	s.status[st.Context] = st
	s.statusDirty = true
	s.mu.Unlock()
	s.wake()
}

// UpdateStatus changes a context's state in place under the store's lock.
func (s *Store) UpdateStatus(context string, f func(*ContextStatus)) {
	s.mu.Lock()
	st := s.status[context]
	st.Context = context
	f(&st)
	s.status[context] = st
	s.statusDirty = true
	s.mu.Unlock()
	s.wake()
}

// Status returns a copy of every context's state.
func (s *Store) Status() []ContextStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked()
}

func (s *Store) statusLocked() []ContextStatus {
	out := make([]ContextStatus, 0, len(s.status))
	for _, st := range s.status {
		out = append(out, st)
	}
	sortStatus(out)
	return out
}
