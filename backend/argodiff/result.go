package argodiff

import (
	"context"
	"strings"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// Result is the diff of one Application.
type Result struct {
	Report *diff.Report
	// Revision is what the desired side was rendered from: the commit the
	// local render checked out, or the sync revision the API server compared.
	Revision string
	// SyncRevision is the Application's status.sync.revision (revisions of a
	// multi-source app, comma-separated) read before the diff was computed.
	// An approval is bound to it: see Stale.
	SyncRevision string
	// Source says where the diff came from, e.g. "Argo CD API https://argocd.example.com"
	// or "local render of https://git.example.com/apps.git@3f2a…".
	Source string
	// Warnings are things the user should know about this diff (an object
	// whose kind the cluster does not serve, ...). They never hold values.
	Warnings []string
}

// Stale reports whether the Application has moved on since the diff: its
// sync revision is no longer the one the diff was computed against, so an
// approval given on this diff must not be used.
func (r *Result) Stale(app map[string]any) bool {
	return RevisionOf(app) != r.SyncRevision
}

// RevisionOf reads an Application's sync revision: status.sync.revision, or
// status.sync.revisions joined with commas for a multi-source app.
func RevisionOf(app map[string]any) string {
	r := objread.New(app)
	if revs := r.Slice("status", "sync", "revisions"); len(revs) > 0 {
		out := make([]string, 0, len(revs))
		for _, v := range revs {
			s, _ := v.(string)
			out = append(out, s)
		}
		return strings.Join(out, ",")
	}
	return r.Str("status", "sync", "revision")
}

// Source computes the diff of an Application. cluster is the connection the
// Application was read from.
type Source interface {
	Diff(ctx context.Context, app map[string]any, cluster *kube.Cluster) (*Result, error)
}

// Options choose and tune the source.
type Options struct {
	// Server is the Argo CD API server to ask; nil renders locally.
	Server *ServerConfig
	// CacheDir holds the local render's repository clones; empty means
	// <user cache dir>/driftdeck/argodiff.
	CacheDir string
	// Diff tunes the comparison.
	Diff diff.Options
}

// NewSource returns the API server source when a server is configured, else
// the local render.
func NewSource(opts Options) Source {
	if opts.Server != nil {
		return &APISource{Server: opts.Server, DiffOptions: opts.Diff}
	}
	return &LocalSource{CacheDir: opts.CacheDir, DiffOptions: opts.Diff}
}
