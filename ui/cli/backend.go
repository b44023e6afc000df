package cli

import (
	"context"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/livedescribe"
	"github.com/driftdeck/driftdeck/backend/livetree"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// service is the backend the TUI and the action commands use: the executor
// for writes, the describer for the detail view.
type service struct {
	*actions.Executor
	*livedescribe.Describer
	*unitDiffer
	*stackops.Ops
	*changereq.Desk
	*rootService
	trees *livetree.Reader
}

// ResourceTree reads an Application's, a Kustomization's or a HelmRelease's live resource tree.
func (s *service) ResourceTree(ctx context.Context, k model.Key) (*restree.Tree, error) {
	return s.trees.Read(ctx, k)
}

// newService wires the executor and describer to a fleet, with the audit log
// in the XDG state directory.
func newService(ctx context.Context, g *globals, f *fleet.Fleet, cfg *config.Config) (*service, error) {
	log, err := openAudit()
	if err != nil {
		return nil, err
	}
	differ, err := newDiffer(ctx, g, f.Cluster, f.ArgoAPI)
	if err != nil {
		return nil, err
	}
	trees, err := newTreeReader(g, cfg, f.Cluster, f.ArgoAPI)
	if err != nil {
		return nil, err
	}
	roots := &rootService{fleet: f, audit: log, readOnly: g.readOnly, dryRun: g.dryRun}
	differ.roots = roots
	return &service{
		Executor: &actions.Executor{
			Cluster:  f.Cluster,
			ArgoAPI:  f.ArgoAPI,
			Audit:    log,
			ReadOnly: g.readOnly,
			DryRun:   g.dryRun,
			Settle:   3 * time.Second,
			Origin:   g.origin(),
		},
		Describer:  &livedescribe.Describer{Cluster: f.Cluster, Updates: f.Updates, ArgoAPI: f.ArgoAPI},
		unitDiffer: differ,
		Ops: &stackops.Ops{Cluster: f.Cluster, Programs: cfg.Stacks, Audit: log, ReadOnly: g.readOnly, DryRun: g.dryRun,
			DriftChecked: f.RecordDrift},
		Desk:        &changereq.Desk{Cluster: f.Cluster, Index: f.Requests, ReadOnly: g.readOnly, DryRun: g.dryRun},
		rootService: roots,
		trees:       trees,
	}, nil
}
