package demo

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/sim"
)

// appSetsSettled waits until the simulated ApplicationSet controller has
// passed once over every ApplicationSet. A first pass reads its set and
// then writes the set's Applications; a write made in between (a pause
// given as the demo opens, as `driftdeck --demo pause` does) was undone by
// it, the ignoreApplicationDifferences entry added meanwhile unseen.
func appSetsSettled(ctx context.Context, dyn dynamic.Interface, c *sim.AppSet, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	select {
	case <-c.Ready():
	case <-ctx.Done():
		return fmt.Errorf("the ApplicationSet controller did not start within %v", within)
	}
	sets, err := dyn.Resource(argocd.ApplicationSets).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, s := range sets.Items {
		for c.Passes(s.GetNamespace(), s.GetName()) == 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("the ApplicationSet controller did not pass over %s/%s within %v", s.GetNamespace(), s.GetName(), within)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return nil
}
