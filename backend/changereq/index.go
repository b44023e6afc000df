package changereq

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Listed is a request of one context.
type Listed struct {
	Context string
	*ChangeRequest
}

// Index keeps the change requests a fleet watches, and marks each unit
// with its open request (a store classifier).
type Index struct {
	mu   sync.RWMutex
	byCx map[string]map[string]*ChangeRequest // context → namespace/name
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{byCx: map[string]map[string]*ChangeRequest{}} }

// Put adds or replaces one request.
func (x *Index) Put(context string, cr *ChangeRequest) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.of(context)[cr.Ref()] = cr
}

// of is a context's requests, made when missing; x.mu is held.
func (x *Index) of(context string) map[string]*ChangeRequest {
	m := x.byCx[context]
	if m == nil {
		m = map[string]*ChangeRequest{}
		x.byCx[context] = m
	}
	return m
}

// Remove forgets one request.
func (x *Index) Remove(context, namespace, name string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.byCx[context], namespace+"/"+name)
}

// Replace sets the requests of a context's namespace ("": of every one).
func (x *Index) Replace(context, namespace string, crs []*ChangeRequest) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m := x.of(context)
	for ref := range m {
		if namespace == "" || strings.HasPrefix(ref, namespace+"/") {
			delete(m, ref)
		}
	}
	for _, cr := range crs {
		m[cr.Ref()] = cr
	}
}

// All lists every request, oldest first.
func (x *Index) All() []Listed {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []Listed
	for cx, m := range x.byCx {
		for _, cr := range m {
			out = append(out, Listed{Context: cx, ChangeRequest: cr})
		}
	}
	slices.SortFunc(out, func(a, b Listed) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Context+"/"+a.Ref(), b.Context+"/"+b.Ref())
	})
	return out
}

// Classify marks the unit with its newest open request; an open request
// expires with time.
func (x *Index) Classify(u *model.Unit, now time.Time) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	u.Request = nil
	var newest *ChangeRequest
	for cx, m := range x.byCx {
		// A root module's requests may be kept in any context.
		if cx != u.Key.Context && u.Key.Engine.InCluster() {
			continue
		}
		for _, cr := range m {
			if cr.Key(cx) != u.Key {
				continue
			}
			if p, _ := cr.State(now); p != Pending && p != Approved && p != Applying {
				continue
			}
			if newest == nil || cr.Created.After(newest.Created) {
				newest = cr
			}
		}
	}
	if newest == nil {
		return false
	}
	p, _ := newest.State(now)
	u.Request = &model.RequestMark{Ref: newest.Ref(), Action: newest.Spec.Action, Requester: newest.Spec.Requester, Phase: string(p),
		Approvals: len(newest.Approvers()), Required: newest.Spec.ApprovalsRequired}
	return true
}
