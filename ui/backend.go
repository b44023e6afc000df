// Package ui is the Bubble Tea root of driftdeck: layout, routing between the
// views, header and footer, the ":" command bar, confirm dialogs and toasts.
// It reaches the clusters only through Backend.
package ui

import (
	"context"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/backend/store"
)

// Backend is everything the UI may ask of the backend.
type Backend interface {
	Available(ctx context.Context, u *model.Unit) []actions.Availability
	Plan(ctx context.Context, req actions.Request) (*actions.Plan, error)
	Execute(ctx context.Context, req actions.Request) (*actions.Result, error)
	Bulk(ctx context.Context, r actions.BulkRequest) []actions.BulkOutcome
	Describe(ctx context.Context, k model.Key) (*describe.Detail, error)
	Diff(ctx context.Context, k model.Key) (*argodiff.Result, error)
	Preview(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error)
	Approve(ctx context.Context, r *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, *stackops.Done, error)
	PlanUnstick(ctx context.Context, k model.Key, clearPending, force bool) (*stackops.Unstick, error)
	Apply(ctx context.Context, u *stackops.Unstick, reason string) (*stackops.Done, error)
}

// BatchMsg carries a batch of model changes from the store's pump.
type BatchMsg store.Batch
