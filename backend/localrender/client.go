package localrender

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/driftdeck/driftdeck/backend/internal/helperbin"
)

// HelperName is the helper's executable name.
const HelperName = "driftdeck-render"

// HelperEnv names the variable that points at the helper explicitly.
const HelperEnv = "DRIFTDECK_RENDER_HELPER"

var renderHelper = helperbin.Helper{Name: HelperName, Env: HelperEnv, Holds: "git, kustomize and helm"}

// Rendered is a source's objects at the commit they were rendered from.
type Rendered struct {
	Commit string
	// Chart names the chart a Helm render rendered ("web 1.2.0").
	Chart   string
	Objects []map[string]any
}

// UnsupportedError is a source the local render cannot reproduce (a Helm
// chart, a Jsonnet file).
type UnsupportedError struct{ What string }

func (e *UnsupportedError) Error() string { return e.What + " is not supported locally" }

// RenderError is a failure after the checkout: Commit says which commit
// did not render.
type RenderError struct {
	Commit string
	Err    error
}

func (e *RenderError) Error() string { return e.Err.Error() }
func (e *RenderError) Unwrap() error { return e.Err }

// Argo checks out repo at revision and renders an Argo CD source in it.
func Argo(ctx context.Context, cacheDir, repo, revision string, src ArgoSource) (Rendered, error) {
	return call(ctx, Request{Op: OpArgo, Repo: repo, Revision: revision, CacheDir: cacheDir, Argo: &src})
}

// Flux checks out repo at revision and builds a Flux Kustomization (its
// spec) in it as kustomize-controller does, before post-build substitution.
func Flux(ctx context.Context, cacheDir, repo, revision string, spec map[string]any) (Rendered, error) {
	return call(ctx, Request{Op: OpFlux, Repo: repo, Revision: revision, CacheDir: cacheDir, Flux: spec})
}

// Helm templates a chart as `helm template` does: chart.Chart of the Helm
// repository repo at version (a version or a semver range), or the chart
// directory chart.Path of the git repository repo at that revision.
func Helm(ctx context.Context, cacheDir, repo, version string, chart HelmChart) (Rendered, error) {
	return call(ctx, Request{Op: OpHelm, Repo: repo, Revision: version, CacheDir: cacheDir, Helm: &chart})
}

// Clone clones src.Repo into src.Dest.
func Clone(ctx context.Context, src CloneSource) error {
	_, err := call(ctx, Request{Op: OpClone, Clone: &src})
	return err
}

func call(ctx context.Context, req Request) (Rendered, error) {
	why := "a local diff"
	if req.Op == OpClone {
		why = "a checkout of " + RedactURL(req.Clone.Repo)
	}
	path, err := renderHelper.Find(why)
	if err != nil {
		return Rendered{}, err
	}
	req.Protocol = ProtocolVersion
	var rep Reply
	err = renderHelper.Call(ctx, path, []string{"serve"}, req, func(dec *json.Decoder) (bool, error) {
		// Objects keep numbers as written (json.Number), as diff.Parse
		// reads manifests.
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return false, err
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		return true, d.Decode(&rep)
	})
	switch {
	case err != nil:
		return Rendered{}, err
	case rep.Unsupported != "":
		return Rendered{}, wrapRender(rep.Commit, &UnsupportedError{What: rep.Unsupported})
	case rep.Error != "" && ctx.Err() != nil:
		return Rendered{}, errors.Join(ctx.Err(), errors.New(rep.Error))
	case rep.Error != "":
		return Rendered{}, wrapRender(rep.Commit, errors.New(rep.Error))
	}
	return Rendered{Commit: rep.Commit, Chart: rep.Chart, Objects: rep.Objects}, nil
}

func wrapRender(commit string, err error) error {
	if commit == "" {
		return err
	}
	return &RenderError{Commit: commit, Err: err}
}
