package argodiff

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Differ diffs units by key: it reads the Application fresh from its
// cluster and asks the source.
type Differ struct {
	Cluster func(context string) (*kube.Cluster, bool)
	Source  Source
}

// Diff computes what a sync of the unit would change.
func (d *Differ) Diff(ctx context.Context, k model.Key) (*Result, error) {
	if k.Engine != model.EngineArgoCD {
		return nil, fmt.Errorf("%s is not an Argo CD Application: diffs are for Applications (Stacks have previews)", k.Ref())
	}
	c, ok := d.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	app, err := c.Dynamic.Resource(argocd.Applications).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s does not exist (any more)", k.Ref())
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	return d.Source.Diff(ctx, app.Object, c)
}
