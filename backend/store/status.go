package store

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// ContextStatus is the connection state of one cluster context.
type ContextStatus struct {
	Context  string
	Identity string // who the cluster says we are
	// Route says how Argo CD is reached when not through the Kubernetes
	// API: "argocd via <server> as <user>".
	Route     string
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
	// Unreadable is what the identity may not read here (RBAC): a part of
	// the estate not shown, not an error.
	Unreadable []Unreadable
	Synced     bool // every watch delivered its initial list
	// Lists counts the complete lists the watches received, the first ones
	// included: more than one per watch means the watch was relisted.
	Lists int
}

// Unreadable is one resource the identity may not list where it was
// looked for.
type Unreadable struct {
	// What names it in the plural ("Pulumi Stacks").
	What string
	// Namespace is where it was listed; "" is every namespace.
	Namespace string
	// Units: its objects are units (not what classifies them, such as a
	// Flux source or an AppProject's sync windows).
	Units bool
	// ReadIn are the namespaces read instead, when every namespace may not
	// be listed but these may.
	ReadIn []string
	// For are the engines it is read for: its units' engine, or those
	// whose units it classifies.
	For []model.Engine
	// Unsearched says why the namespaces it may be read in could not be
	// found by access reviews, when they could not.
	Unsearched string
}

// NotShown says once what the identity may not read, "" when it reads all:
// "not shown: Pulumi Stacks, Flux Kustomizations in team-a: RBAC".
func (c ContextStatus) NotShown() string {
	if len(c.Unreadable) == 0 {
		return ""
	}
	var places, unsearched []string
	byPlace := map[string][]string{}
	for _, u := range c.Unreadable {
		if c.impliedUnreadable(u) {
			continue
		}
		if u.Unsearched != "" && !slices.Contains(unsearched, u.Unsearched) {
			unsearched = append(unsearched, u.Unsearched)
		}
		where := "in " + u.Namespace
		switch {
		case u.Namespace == "" && len(u.ReadIn) > 0:
			where = "outside " + namespaceList(u.ReadIn)
		case u.Namespace == "":
			where = "cluster-wide"
		}
		if _, ok := byPlace[where]; !ok {
			places = append(places, where)
		}
		byPlace[where] = append(byPlace[where], u.What)
	}
	parts := make([]string, len(places))
	for i, where := range places {
		parts[i] = strings.Join(byPlace[where], ", ") + " " + where
	}
	said := "not shown: " + strings.Join(parts, "; ") + ": RBAC"
	if len(unsearched) > 0 {
		said += " (where else they may be read is not known: " + strings.Join(unsearched, "; ") + ")"
	}
	return said
}

// namespaceList names a few namespaces, and counts the rest: a header
// line has no room for forty.
func namespaceList(namespaces []string) string {
	const named = 3
	if len(namespaces) <= named+1 {
		return strings.Join(namespaces, ", ")
	}
	return strings.Join(namespaces[:named], ", ") + " and " + strconv.Itoa(len(namespaces)-named) + " more namespaces"
}

// impliedUnreadable tells whether u classifies only units that are not
// shown where it is not either: not worth a word.
func (c ContextStatus) impliedUnreadable(u Unreadable) bool {
	if u.Units || len(u.For) == 0 {
		return false
	}
	for _, e := range u.For {
		if !slices.ContainsFunc(c.Unreadable, func(o Unreadable) bool {
			return o.Units && o.Namespace == u.Namespace && len(o.ReadIn) == 0 && slices.Contains(o.For, e)
		}) {
			return false
		}
	}
	return true
}

// AddUnreadable records what may not be read where, replacing what was
// recorded of it there, in a steady order.
func (c *ContextStatus) AddUnreadable(u Unreadable) {
	// A new slice: copies of the status handed out share the old one.
	next := slices.DeleteFunc(slices.Clone(c.Unreadable), func(o Unreadable) bool {
		return o.What == u.What && o.Namespace == u.Namespace
	})
	next = append(next, u)
	slices.SortStableFunc(next, func(a, b Unreadable) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(unreadableOrder(a), unreadableOrder(b)), cmp.Compare(engineOrder(a), engineOrder(b)), cmp.Compare(a.What, b.What))
	})
	c.Unreadable = next
}

// unreadableOrder puts units before what classifies them.
func unreadableOrder(u Unreadable) int {
	if u.Units {
		return 0
	}
	return 1
}

// engineOrder is the place of u's first engine in model.Engines.
func engineOrder(u Unreadable) int {
	if len(u.For) == 0 {
		return len(model.Engines)
	}
	if i := slices.Index(model.Engines, u.For[0]); i >= 0 {
		return i
	}
	return len(model.Engines)
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

// FirstListsIn reports whether each of contexts contexts has its first
// lists in, or an error instead: a context still discovering (a slow link)
// has no state yet.
func (s *Store) FirstListsIn(contexts int) bool {
	st := s.Status()
	if len(st) < contexts {
		return false
	}
	for _, c := range st {
		if !c.Synced && c.Error == "" {
			return false
		}
	}
	return true
}
