package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/themes"
	treeview "github.com/driftdeck/driftdeck/views/restree"
)

// resTreeScreen is an Application's live resource tree: a cursor and marks
// over its resources, a diff of the one under the cursor, a sync of the
// marked ones. It reads the tree again on r and when the app changes, at
// most every two seconds.
type resTreeScreen struct {
	ownContext // its reads run until it closes
	unitKey    model.Key
	v          *treeview.Model
	reads      rereader
}

// resTreeMsg answers the read of the resource tree screen from.
type resTreeMsg struct {
	from *resTreeScreen
	tree *restree.Tree
	err  error
}

// resourcesOf shows the live resource tree of an Application, or of a
// Kustomization's inventory.
type resourcesOf struct{ unit *model.Unit }

func (o resourcesOf) open(a *App) tea.Cmd {
	u := o.unit
	if u == nil {
		return nil
	}
	if !model.InfoOf(u.Key.Engine).ResourceTree {
		a.toastError("live resource trees are for Argo CD Applications, Flux Kustomizations and HelmReleases (" + u.Key.Ref() + " is a " + string(u.Key.Engine) + ")")
		return nil
	}
	s := &resTreeScreen{ownContext: newOwnContext(a), unitKey: u.Key, v: treeview.New(a.theme, "Resources of "+u.Key.Ref())}
	a.push(s)
	return s.readCmd(a)
}

func (s *resTreeScreen) setSize(w, h int)                { s.v.SetSize(w, h) }
func (s *resTreeScreen) setTheme(t *themes.Theme)        { s.v.SetTheme(t) }
func (s *resTreeScreen) view(_ *App, _ time.Time) string { return s.v.View() }

func (s *resTreeScreen) readCmd(a *App) tea.Cmd {
	be, ctx, k := a.opts.Backend, s.ctx, s.unitKey
	return s.reads.read(a.now(), 2*time.Second, func() tea.Msg {
		t, err := be.ResourceTree(ctx, k)
		return resTreeMsg{from: s, tree: t, err: err}
	})
}

func (s *resTreeScreen) update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case resTreeMsg:
		if msg.from != s {
			return nil // another screen's, or one closed before its read returned
		}
		s.v.SetTree(msg.tree, msg.err)
		if s.reads.done() {
			return s.readCmd(a)
		}
	case unitsChangedMsg:
		if msg.changed[s.unitKey] {
			return s.readCmd(a)
		}
	case wroteMsg:
		if msg.key == s.unitKey {
			return s.readCmd(a)
		}
	case tea.KeyPressMsg:
		return s.press(a, msg)
	}
	return nil
}

func (s *resTreeScreen) press(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k, v := a.keys, s.v
	if a.scrollKey(msg, v.Move, v.Page()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		if !v.ClearMarks() {
			a.close(s)
		}
	case key.Matches(msg, k.Quit):
		a.close(s)
	case key.Matches(msg, k.Help):
		a.push(newHelpScreen())
	case key.Matches(msg, k.Mark) && s.unitKey.Engine == model.EngineArgoCD:
		v.ToggleMark()
		v.Move(1)
	case key.Matches(msg, k.Refresh):
		return s.readCmd(a)
	case key.Matches(msg, k.Wrap):
		v.ToggleWrap()
	case key.Matches(msg, k.Diff):
		return s.diff(a)
	case key.Matches(msg, k.Sync):
		return s.sync(a)
	case key.Matches(msg, k.Logs):
		return s.podLogs(a)
	}
	return nil
}

// podLogs opens the log of the Pod under the cursor, in the context its
// live objects were read from.
func (s *resTreeScreen) podLogs(a *App) tea.Cmd {
	ref, ok := s.SelectedPod()
	tr := s.v.Tree()
	switch {
	case !ok:
		a.toastError("logs are of Pods: move the cursor to one")
		return nil
	case tr != nil && tr.Context == "" && tr.LiveRead:
		// Argo CD's API server gave the tree: it serves the Pod's log too.
		return navigate(podLogsOf{logs.PodRef{Context: s.unitKey.Context, Namespace: ref.Namespace, Name: ref.Name, App: s.unitKey}})
	case tr == nil || tr.Context == "":
		a.toastError("the live objects were not read, so the Pod's log cannot be either")
		return nil
	}
	return navigate(podLogsOf{logs.PodRef{Context: tr.Context, Namespace: ref.Namespace, Name: ref.Name}})
}

// diff opens the diff of the resource under the cursor: the app's diff,
// narrowed to it.
func (s *resTreeScreen) diff(a *App) tea.Cmd {
	n := s.v.Selected()
	switch {
	case n == nil:
		return nil
	case !n.Managed:
		a.toastError(n.Kind + " " + n.Name + " is not in the unit's source: its owner's diff is what an apply changes")
		return nil
	}
	return a.open(resourceDiffOf{a.unit(s.unitKey), diff.ObjectKey{Group: n.Group, Kind: n.Kind, Namespace: n.Namespace, Name: n.Name}})
}

// sync asks to sync the marked resources (or the one under the cursor),
// with the sync dialog's options.
func (s *resTreeScreen) sync(a *App) tea.Cmd {
	if s.unitKey.Engine != model.EngineArgoCD {
		a.toastError("a Flux unit applies all of its objects at once: refresh it (" + a.keys.Refresh.Help().Key + " on its detail) to reconcile now")
		return nil
	}
	resources, err := actions.SyncResources(s.v.Targets())
	if err != nil {
		a.toastError("sync: " + err.Error())
		return nil
	}
	u := a.unit(s.unitKey)
	if u == nil {
		a.toastError(errGone(s.unitKey).Error())
		return nil
	}
	if av, ok := a.availabilityOf(u.Key, actions.Sync); ok && !av.Enabled {
		a.toastError("sync " + u.Key.Ref() + ": " + av.WhyNot)
		return nil
	}
	return a.startRequest(actions.Request{Kind: actions.Sync, Key: s.unitKey, Resources: resources}, s)
}

// SelectedPod is the Pod under the cursor, if it is one: where a log
// screen opens from (the hook point for pod logs).
func (s *resTreeScreen) SelectedPod() (restree.Ref, bool) {
	n := s.v.Selected()
	if n == nil || n.Group != "" || n.Kind != "Pod" {
		return restree.Ref{}, false
	}
	return n.Ref, true
}

func (s *resTreeScreen) keyHelp(a *App) string {
	k := a.keys
	moves, acts := bindings(k.Back, k.Up, k.Down, k.Mark), []string{k.Diff.Help().Key, "diff of it", k.Sync.Help().Key, "sync marked (or it)"}
	if s.unitKey.Engine != model.EngineArgoCD { // a Flux unit applies as a whole: nothing to mark or sync
		moves, acts = bindings(k.Back, k.Up, k.Down), acts[:2]
	}
	acts = append(acts, k.Refresh.Help().Key, "read again", k.Logs.Help().Key, "pod log")
	return a.wrapHint(s.v.Wrapping(), s.v.Cut()) + a.keyHints(moves) + "  " + a.hints(acts...) + "  " +
		a.keyHints(bindings(k.Help))
}
