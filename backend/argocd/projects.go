package argocd

import (
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Projects indexes the sync windows of every AppProject seen, per context, and
// classifies Applications against them. It is safe for concurrent use.
type Projects struct {
	mu      sync.RWMutex
	windows map[projectKey][]SyncWindow
}

type projectKey struct{ context, namespace, name string }

// NewProjects returns an empty index.
func NewProjects() *Projects { return &Projects{windows: map[projectKey][]SyncWindow{}} }

// Put records a project's windows.
func (p *Projects) Put(context, namespace, name string, windows []SyncWindow) {
	p.mu.Lock()
	p.windows[projectKey{context, namespace, name}] = windows
	p.mu.Unlock()
}

// Remove forgets a project.
func (p *Projects) Remove(context, namespace, name string) {
	p.mu.Lock()
	delete(p.windows, projectKey{context, namespace, name})
	p.mu.Unlock()
}

// lookup finds an app's project: in the app's namespace first, else in any
// namespace of the context (apps in other namespaces use the control plane's).
func (p *Projects) lookup(context, namespace, name string) []SyncWindow {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if w, ok := p.windows[projectKey{context, namespace, name}]; ok {
		return w
	}
	for k, w := range p.windows {
		if k.context == context && k.name == name {
			return w
		}
	}
	return nil
}

// Verdict evaluates the windows that apply to a unit now.
func (p *Projects) Verdict(u *model.Unit, now time.Time) Verdict {
	if u.Argo == nil {
		return Verdict{AutoOK: true, ManualOK: true}
	}
	ws := p.lookup(u.Key.Context, u.Key.Namespace, u.Project)
	return Evaluate(ws, u.Key.Name, u.Argo.DestNamespace, u.Argo.DestServer, u.Argo.DestName, now)
}

// Classify implements store.Classifier: a unit that would sync (drifted with
// auto-sync on, a queued request, or a manual app awaiting a sync that the
// window forbids too) is blocked by the window.
func (p *Projects) Classify(u *model.Unit, now time.Time) bool {
	if u.Argo == nil {
		return false
	}
	v := p.Verdict(u, now)
	u.Window, u.WindowAllowsManual = "", false // as the adapter leaves them: see the store's derivedAsIs
	if !v.HasWindows {
		return false
	}
	if v.Reason != "" {
		u.Window, u.WindowAllowsManual = v.Reason, v.ManualOK
	}
	blocked := false
	switch {
	case u.Queued:
		blocked = !v.ManualOK
	case u.Observed == model.Idle && u.Sync == model.Drifted && u.Argo.AutoSync:
		blocked = !v.AutoOK
	case u.Observed == model.AwaitingApproval:
		blocked = !v.ManualOK
	}
	if blocked {
		u.Observed, u.Queued, u.RunReason = model.BlockedByWindow, false, "sync blocked: "+v.Reason
		u.StuckRule = "the project's sync windows forbid syncing now"
	}
	return true
}
