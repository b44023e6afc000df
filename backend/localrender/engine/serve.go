package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/driftdeck/driftdeck/backend/internal/helperbin"
	"github.com/driftdeck/driftdeck/backend/localrender"
)

const usage = `usage: driftdeck-render serve

driftdeck runs this helper to check out and render GitOps sources for a
local diff: it reads one request on standard input, writes the answer on
standard output, and stops when its input is closed. It is not meant to be
run by hand.
`

// Main is the helper's main; it returns the exit code.
func Main(args []string) int {
	if len(args) != 2 || args[1] != "serve" {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	// driftdeck stops a render by closing the input; an interrupt meant for
	// driftdeck's terminal, or a write to a driftdeck that is gone, must not
	// kill the helper halfway through a clone's cache.
	signal.Ignore(os.Interrupt, syscall.SIGPIPE)
	if err := Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "driftdeck-render: %v\n", err)
		return 1
	}
	return 0
}

// Serve answers one localrender.Request read from in with a Reply on out.
func Serve(in io.Reader, out io.Writer) error {
	var req localrender.Request
	ctx, cancel, err := helperbin.ReadRequest(in, &req)
	if err != nil {
		return err
	}
	defer cancel()
	return json.NewEncoder(out).Encode(answer(ctx, req))
}

func answer(ctx context.Context, req localrender.Request) localrender.Reply {
	if req.Protocol != localrender.ProtocolVersion {
		return localrender.Reply{Error: fmt.Sprintf("driftdeck-render speaks protocol %d and this driftdeck %d: install the helper of the same release",
			localrender.ProtocolVersion, req.Protocol)}
	}
	var rep localrender.Reply
	var err error
	switch req.Op {
	case localrender.OpHelm:
		if req.Helm == nil {
			err = errors.New("a Helm request without a chart")
		} else if req.Helm.Chart != "" {
			rep.Commit, rep.Objects, err = renderRepositoryChart(ctx, req, *req.Helm)
			rep.Chart = req.Helm.Chart + " " + rep.Commit
			break
		}
		fallthrough
	case localrender.OpArgo, localrender.OpFlux:
		if err == nil {
			rep.Commit, rep.Chart, rep.Objects, err = checkoutAndRender(ctx, req)
		}
	case localrender.OpClone:
		if req.Clone == nil {
			err = errors.New("a clone request without a source")
		} else {
			err = clone(ctx, *req.Clone)
		}
	default:
		err = fmt.Errorf("unknown operation %q", req.Op)
	}
	var u *localrender.UnsupportedError
	switch {
	case errors.As(err, &u):
		rep.Unsupported = u.What
	case err != nil:
		rep.Error = err.Error()
	}
	return rep
}

// checkoutAndRender writes the source at the revision into a temporary
// directory and renders it there; the commit is returned once known, even
// when the render fails, and a chart's name and version once loaded.
func checkoutAndRender(ctx context.Context, req localrender.Request) (commit, chart string, objs []map[string]any, err error) {
	cache, err := requestCache(req)
	if err != nil {
		return "", "", nil, err
	}
	tmp, err := os.MkdirTemp("", "driftdeck-render-")
	if err != nil {
		return "", "", nil, err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if commit, err = cache.checkout(ctx, req.Repo, req.Revision, src); err != nil {
		return "", "", nil, err
	}
	if h := helmOf(req); h != nil {
		h.Env = withRevision(h.Env, commit)
		if err := cache.checkoutRefs(ctx, tmp, h); err != nil {
			return commit, "", nil, err
		}
	}
	switch {
	case req.Op == localrender.OpFlux:
		objs, err = buildFlux(tmp, req.Flux)
	case req.Op == localrender.OpHelm:
		objs, chart, err = renderChartDirectory(ctx, src, *req.Helm)
	case req.Argo == nil:
		err = errors.New("an Argo CD render request without a source")
	default:
		objs, err = render(ctx, src, *req.Argo)
	}
	return commit, chart, objs, err
}

// helmOf is the Helm settings of a request, if it has any.
func helmOf(req localrender.Request) *localrender.HelmChart {
	if req.Argo != nil {
		return req.Argo.Helm
	}
	return req.Helm
}

// requestCache is the clone cache a request names, else the user's.
func requestCache(req localrender.Request) (repoCache, error) {
	if req.CacheDir != "" {
		return repoCache{dir: req.CacheDir}, nil
	}
	dir, err := defaultCacheDir()
	return repoCache{dir: dir}, err
}

// checkoutRefs checks out, under tmp, each ref source the chart's files
// name, and records where in h.RefRoots.
func (c repoCache) checkoutRefs(ctx context.Context, tmp string, h *localrender.HelmChart) error {
	for _, name := range usedRefs(*h) {
		ref, ok := h.Refs[name]
		if !ok {
			return fmt.Errorf("$%s names no ref source of the Application", name)
		}
		dir := filepath.Join(tmp, "ref-"+name)
		if _, err := c.checkout(ctx, ref.Repo, ref.Revision, dir); err != nil {
			return fmt.Errorf("ref source %s (%s@%s): %w", name, localrender.RedactURL(ref.Repo), ref.Revision, err)
		}
		if h.RefRoots == nil {
			h.RefRoots = map[string]string{}
		}
		h.RefRoots[name] = dir
	}
	return nil
}

// renderRepositoryChart pulls a chart of a Helm repository and templates it;
// the version pulled stands for the commit.
func renderRepositoryChart(ctx context.Context, req localrender.Request, h localrender.HelmChart) (string, []map[string]any, error) {
	ch, pulled, err := pullChart(ctx, req.Repo, h.Chart, req.Revision)
	if err != nil {
		return "", nil, err
	}
	h.Env = withRevision(h.Env, pulled)
	if len(usedRefs(h)) > 0 {
		cache, err := requestCache(req)
		if err != nil {
			return pulled, nil, err
		}
		tmp, err := os.MkdirTemp("", "driftdeck-render-")
		if err != nil {
			return pulled, nil, err
		}
		defer os.RemoveAll(tmp)
		if err := cache.checkoutRefs(ctx, tmp, &h); err != nil {
			return pulled, nil, err
		}
	}
	objs, err := templateChart(ctx, ch, "", "", h)
	return pulled, objs, err
}

// renderChartDirectory templates the chart at h.Path of a checkout.
func renderChartDirectory(ctx context.Context, root string, h localrender.HelmChart) ([]map[string]any, string, error) {
	dir := filepath.Join(root, filepath.FromSlash(h.Path))
	if !inside(root, dir) {
		return nil, "", fmt.Errorf("chart path %q leaves the repository", h.Path)
	}
	if !exists(filepath.Join(dir, "Chart.yaml")) {
		return nil, "", fmt.Errorf("no chart at %q in the repository (no Chart.yaml)", h.Path)
	}
	return helmTemplate(ctx, root, dir, h)
}
