package cli

import (
	"fmt"
	"strings"

	"github.com/driftdeck/driftdeck/backend/model"
)

// parseNames reads the units status is asked for, as `kubectl get NAME...`
// takes names; a name without a context matches it in every context.
func parseNames(names []string) ([]model.Key, error) {
	keys := make([]model.Key, 0, len(names))
	for _, n := range names {
		k, err := model.ParseRef(n)
		if err != nil {
			return nil, usageError(err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// pickNamed returns the units named, in the order named and each once, and
// a not-found error (exit 5) naming those that match no unit.
func pickNamed(all []*model.Unit, wanted []model.Key) ([]*model.Unit, error) {
	var (
		picked  []*model.Unit
		seen    = map[model.Key]bool{}
		missing []string
	)
	for _, w := range wanted {
		found := false
		for _, u := range all {
			if !nameMatches(w, u.Key) {
				continue
			}
			found = true
			if !seen[u.Key] {
				seen[u.Key] = true
				picked = append(picked, u)
			}
		}
		if !found {
			missing = append(missing, w.String())
		}
	}
	if len(missing) == 0 {
		return picked, nil
	}
	return picked, &exitError{code: exitNotFound,
		err: fmt.Errorf("not found in the selected contexts and namespaces: %s", strings.Join(missing, ", "))}
}

// nameMatches tells whether the name w, its context optional, names the unit k.
func nameMatches(w, k model.Key) bool {
	return (w.Context == "" || w.Context == k.Context) && w.Engine == k.Engine && w.Namespace == k.Namespace && w.Name == k.Name
}
