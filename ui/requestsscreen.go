package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootreq"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
)

// requestsScreen lists the change requests of every context (`:requests`):
// the approve and reject keys open the review of the one under the cursor,
// its stored write shown whole before the reason is asked.
type requestsScreen struct {
	rows          []changereq.Listed
	cursor        int
	width, height int
	theme         *themes.Theme
}

// reviewedMsg is a review's answer.
type reviewedMsg struct {
	ref, decision string
	cr            *changereq.ChangeRequest
	err           error
}

func (s *requestsScreen) setSize(w, h int)         { s.width, s.height = w, h }
func (s *requestsScreen) setTheme(t *themes.Theme) { s.theme = t }

func (s *requestsScreen) refresh(a *App) {
	s.rows = a.requests
	s.cursor = min(s.cursor, max(len(s.rows)-1, 0))
}

func (s *requestsScreen) update(a *App, msg tea.Msg) tea.Cmd {
	s.refresh(a)
	switch msg := msg.(type) {
	case reviewedMsg:
		if msg.err != nil {
			a.toastError(fmt.Sprintf("%s of %s: %v", msg.decision, msg.ref, msg.err))
			return nil
		}
		p, why := msg.cr.State(a.now())
		a.toastInfo(fmt.Sprintf("%s: %s is %s (%s)", changereq.PastTense(msg.decision), msg.ref, strings.ToLower(string(p)), why))
	case tea.KeyPressMsg:
		return s.key(a, msg)
	}
	return nil
}

func (s *requestsScreen) key(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.Back), key.Matches(msg, k.Quit):
		a.close(s)
	case key.Matches(msg, k.Up):
		s.cursor = max(s.cursor-1, 0)
	case key.Matches(msg, k.Down):
		s.cursor = min(s.cursor+1, max(len(s.rows)-1, 0))
	case key.Matches(msg, k.Approve):
		return s.review(a, changereq.Approve)
	case key.Matches(msg, k.Reject):
		return s.review(a, changereq.Reject)
	}
	return nil
}

// review opens the confirmation of a review of the request under the
// cursor: its stored write whole, a reason, yes or no.
func (s *requestsScreen) review(a *App, decision string) tea.Cmd {
	if len(s.rows) == 0 {
		return nil
	}
	if a.refusedReadOnly("a review") {
		return nil
	}
	l := s.rows[s.cursor]
	now := a.now()
	if p, why := l.State(now); p != changereq.Pending && p != changereq.Approved {
		a.toastError(fmt.Sprintf("%s is %s (%s): nothing to review", l.Ref(), strings.ToLower(string(p)), why))
		return nil
	}
	me := a.identity(l.Context)
	title := fmt.Sprintf("%s change request %s (context %s)", capitalize(decision), l.Ref(), l.Context)
	if me == l.Spec.Requester && decision == changereq.Reject {
		decision = changereq.Cancel
		title = fmt.Sprintf("Cancel your change request %s (context %s)", l.Ref(), l.Context)
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return a.openCustom(&customConfirm{
		title: safetext.Visible(title),
		lines: storedWriteLines(l.ChangeRequest, now),
		run: func(reason string) tea.Cmd {
			return func() tea.Msg {
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				cr, err := be.Review(cctx, l, decision, reason)
				return reviewedMsg{ref: l.Ref(), decision: decision, cr: cr, err: err}
			}
		},
	})
}

// storedWriteLines are a request and its stored write, whole: what the
// agent will send, byte for byte.
func storedWriteLines(cr *changereq.ChangeRequest, now time.Time) []string {
	v := safetext.Visible
	sp, pl := cr.Spec, cr.Spec.Plan
	p, why := cr.State(now)
	out := []string{
		fmt.Sprintf("%s %s asked by %s: %s", v(string(sp.Action)), v(cr.Key("").Ref()), v(sp.Requester), v(sp.Reason)),
		fmt.Sprintf("state %s (%s); open until %s", p, v(why), sp.ExpiresAt.Format(time.RFC3339)),
	}
	for _, r := range cr.Reviews {
		out = append(out, fmt.Sprintf("review: %s %s: %s", v(r.User), v(r.Decision), v(r.Reason)))
	}
	if sp.Unit.Engine == model.EngineRoot {
		for _, l := range append([]string{pl.Summary}, rootreq.Lines(pl)...) {
			out = append(out, v(l))
		}
		return out
	}
	out = append(out, v(pl.Summary), fmt.Sprintf("writes (JSON patch on resourceVersion %s, planned %s as %s):", v(pl.ResourceVersion), pl.At.UTC().Format(time.RFC3339), v(pl.Actor)))
	for _, c := range pl.Changes {
		out = append(out, "  "+v(c))
	}
	for _, o := range pl.Also {
		out = append(out, fmt.Sprintf("and %s (%s the unit's patch):", v(o.Object), v(o.When)))
		for _, c := range o.Changes {
			out = append(out, "  "+v(c))
		}
		out = append(out, "  patch "+v(o.Patch))
	}
	for _, w := range pl.Warnings {
		out = append(out, "warning: "+v(w))
	}
	return append(out, "patch "+v(pl.Patch), "digest "+v(pl.Digest))
}

func (s *requestsScreen) view(a *App, now time.Time) string {
	t := s.theme
	head := fmt.Sprintf("Change requests: %d", len(s.rows))
	if n := a.awaitingReview(now); n > 0 {
		head += fmt.Sprintf(" · %d await your review", n)
	}
	lines := []string{t.Bold.Render(head)}
	if len(s.rows) == 0 {
		lines = append(lines, t.Dim.Render("none: `driftdeck request <action> <unit> --reason R` asks for one (kubectl apply -f deploy/change-requests/ installs them)"))
		return strings.Join(lines, "\n")
	}
	v := safetext.Visible
	table := [][]string{{"CONTEXT", "REQUEST", "UNIT", "ACTION", "REQUESTER", "REVIEWS", "STATE"}}
	for _, l := range s.rows {
		p, _ := l.State(now)
		table = append(table, []string{v(l.Context), v(l.Ref()), v(string(l.Spec.Unit.Engine) + "/" + l.Spec.Unit.Name),
			v(string(l.Spec.Action)), v(l.Spec.Requester), v(l.ChangeRequest.ReviewsText()), string(p)})
	}
	for i, cells := range columns(table) {
		row := ansi.Truncate("  "+cells, s.width, "…")
		switch {
		case i == 0:
			row = t.Dim.Render(row)
		case i-1 == s.cursor:
			row = t.Selected.Render(ansi.Truncate("> "+cells, s.width, "…"))
		}
		lines = append(lines, row)
	}
	sel := s.rows[s.cursor]
	_, why := sel.State(now)
	lines = append(lines, "", t.Dim.Render("why    ")+v(sel.Spec.Reason), t.Dim.Render("state  ")+v(why))
	return strings.Join(lines[:min(len(lines), max(s.height, 1))], "\n")
}

// columns lays out a table's rows, each column as wide as its widest cell.
func columns(rows [][]string) []string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		var b strings.Builder
		for j, c := range r {
			b.WriteString(c)
			if j < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[j]-ansi.StringWidth(c)+2))
			}
		}
		out[i] = b.String()
	}
	return out
}

func (s *requestsScreen) keyHelp(a *App) string {
	k := a.keys
	return a.keyHints(bindings(k.Back, k.Down, k.Up, k.Approve, k.Reject))
}

// identity is who the user is in a context, as its status says.
func (a *App) identity(context string) string {
	for _, st := range a.status {
		if st.Context == context {
			return st.Identity
		}
	}
	return ""
}

// awaitingReview counts the change requests the user may still review.
func (a *App) awaitingReview(now time.Time) int {
	n := 0
	for _, l := range a.requests {
		if me := a.identity(l.Context); me != "" && l.AwaitsReviewBy(me, now) {
			n++
		}
	}
	return n
}
