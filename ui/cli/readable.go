package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/store"
)

// awaitModel waits for every watch's first list, then names on stderr,
// once per context, what the identity may not read there. Partial rights
// are normal: only a context where not one engine's units may be read is
// refused (exit 4); the rest is printed.
func awaitModel(ctx context.Context, g *globals, f *fleet.Fleet) error {
	if err := f.WaitSynced(ctx); err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			return fmt.Errorf("forbidden: %w", err)
		}
		if argoapi.Unauthorized(err) || argoapi.PermissionDenied(err) {
			return &exitError{code: exitForbidden, err: err}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return &exitError{code: exitUnreachable, err: fmt.Errorf("cluster did not answer in time: %w", err)}
		}
		// The Argo CD API server could not give its first list.
		return &exitError{code: exitUnreachable, err: err}
	}
	for _, st := range f.Store.Status() {
		notice := safetext.Visible(st.NotShown()) // it names the namespaces asked for
		if notice == "" {
			continue
		}
		if readsNoUnits(st, g.engines, g.namespaces()) {
			return &exitError{code: exitForbidden, err: fmt.Errorf("forbidden: context %q: %s", safetext.Visible(st.Context), notice)}
		}
		fmt.Fprintf(g.errOut, "%s: %s\n", safetext.Visible(st.Context), notice)
	}
	return nil
}

// readsNoUnits tells whether the identity may read, in none of the
// namespaces read, the units of any engine read (all when engines is nil)
// that the context has.
func readsNoUnits(st store.ContextStatus, engines []model.Engine, namespaces []string) bool {
	refused := func(what, ns string) bool {
		return slices.ContainsFunc(st.Unreadable, func(u store.Unreadable) bool {
			return u.Units && u.What == what && u.Namespace == ns && len(u.ReadIn) == 0
		})
	}
	asked := false
	for _, e := range model.ClusterEngines() {
		if engines != nil && !slices.Contains(engines, e) {
			continue
		}
		if _, missing := st.Missing[string(e)]; missing {
			continue
		}
		asked = true
		for _, ns := range namespaces {
			if !refused(model.InfoOf(e).Units, ns) {
				return false
			}
		}
	}
	return asked
}
