// Package demo is the embedded demo control plane (being written).
package demo

import (
	"context"
	"errors"

	"github.com/driftdeck/driftdeck/backend/kube"
)

// Options tune the demo estate.
type Options struct{}

// Start is replaced by the real demo control plane.
func Start(ctx context.Context, opts Options) (*kube.Cluster, error) {
	return nil, errors.New("demo control plane not available yet")
}
