package argodiff

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender"
)

// LocalSource renders the Application's source itself and dry-runs it
// against the cluster. It handles plain manifest directories and
// kustomizations in git repositories deployed to the cluster the
// Application is read from; anything else is refused with an error that
// points to the API server.
type LocalSource struct {
	CacheDir    string
	DiffOptions diff.Options
}

// inClusterServer is how Argo CD names the cluster it runs in.
const inClusterServer = "https://kubernetes.default.svc"

// workers bounds the concurrent reads and dry runs against the API server.
const workers = 8

// Diff renders the source at the Application's sync revision (its target
// revision when it has none yet) and compares each object's live state with
// a dry-run apply of it. Objects the Application tracks (status.resources)
// that the render no longer has are shown as removed: a sync with pruning
// deletes them.
func (s *LocalSource) Diff(ctx context.Context, app map[string]any, cluster *kube.Cluster) (*Result, error) {
	r, err := s.render(ctx, app, cluster)
	if err != nil {
		return nil, err
	}
	spec, commit, objs := r.spec, r.Commit, r.Objects
	p := &predictor{
		dyn:    cluster.Dynamic,
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(r.disco),
		app:    spec,
	}
	pairs, warnings, err := p.pairs(ctx, objs)
	if err != nil {
		return nil, err
	}
	applyIgnoreRules(pairs, spec.ignore)
	if spec.ignoreNote != "" {
		warnings = append(warnings, spec.ignoreNote)
	}
	report, err := diff.Objects(pairs, s.DiffOptions)
	if err != nil {
		return nil, err
	}
	return &Result{
		Report:       report,
		Revision:     commit,
		SyncRevision: spec.syncRevision,
		Source:       r.from,
		Warnings:     warnings,
	}, nil
}

// Render renders the Application's sources as the repo-server would (the
// manifests Argo CD compares, hooks included), at the revisions compared.
func (s *LocalSource) Render(ctx context.Context, app map[string]any, cluster *kube.Cluster) (localrender.Rendered, error) {
	r, err := s.render(ctx, app, cluster)
	if err != nil {
		return localrender.Rendered{}, err
	}
	return r.Rendered, nil
}

// renderedApp is an Application's local render and what it was read with.
type renderedApp struct {
	localrender.Rendered
	spec  *appSpec
	disco discovery.CachedDiscoveryInterface
	from  string // what the objects were rendered from
}

func (s *LocalSource) render(ctx context.Context, app map[string]any, cluster *kube.Cluster) (*renderedApp, error) {
	if cluster == nil {
		return nil, errors.New("the local render needs a connection to the Application's cluster")
	}
	spec, err := readAppSpec(app)
	if err != nil {
		return nil, err
	}
	for _, src := range spec.sources {
		if err := src.checkRenderable(); err != nil {
			return nil, err
		}
	}
	if err := checkDestination(spec, cluster); err != nil {
		return nil, err
	}
	r := &renderedApp{spec: spec, disco: memory.NewMemCacheClient(cluster.Kube.Discovery())}
	if r.Rendered, r.from, err = render(ctx, s.CacheDir, spec, r.disco); err != nil {
		return nil, err
	}
	return r, nil
}

// render renders the Application's sources in driftdeck-render, each at
// the revision compared: a chart of a Helm repository, or the path of a git
// checkout (a chart there too is templated with the source's Helm
// settings); a ref-only source renders nothing. The commits are joined
// with commas, as a multi-source Application's revisions are.
func render(ctx context.Context, cacheDir string, spec *appSpec, disco discovery.DiscoveryInterface) (localrender.Rendered, string, error) {
	cluster, err := readClusterInfo(disco)
	if err != nil {
		return localrender.Rendered{}, "", err
	}
	var out localrender.Rendered
	var commits, from []string
	for _, src := range spec.sources {
		if src.refOnly() {
			// Read only for the others' value files, at the revision the
			// controller compared; it stands in the revisions all the same.
			commits = append(commits, src.revision)
			continue
		}
		r, err := renderSource(ctx, cacheDir, src, spec.helmChart(src, cluster))
		if err != nil {
			return localrender.Rendered{}, "", localRenderError(src.repoURL, err)
		}
		out.Objects = append(out.Objects, r.Objects...)
		commits = append(commits, r.Commit)
		from = append(from, renderedFrom(src, r.Commit))
	}
	out.Commit = strings.Join(commits, ",")
	return out, "local render of " + strings.Join(from, "; "), nil
}

func renderSource(ctx context.Context, cacheDir string, src sourceSpec, helm localrender.HelmChart) (localrender.Rendered, error) {
	if src.chart != "" {
		return localrender.Helm(ctx, cacheDir, src.repoURL, src.revision, helm)
	}
	return localrender.Argo(ctx, cacheDir, src.repoURL, src.revision, localrender.ArgoSource{
		Path: src.path, Recurse: src.recurse, Include: src.include, Exclude: src.exclude, Helm: &helm,
	})
}

// renderedFrom names what a source's objects were rendered from.
func renderedFrom(src sourceSpec, commit string) string {
	repo := localrender.RedactURL(src.repoURL)
	if src.chart != "" {
		return fmt.Sprintf("chart %s %s from %s", src.chart, commit, repo)
	}
	return fmt.Sprintf("%s@%s", repo, shortHash(commit))
}

// localRenderError says which commit failed to render, and turns what the
// local render cannot reproduce into the advice to use the API server.
func localRenderError(repoURL string, err error) error {
	cause := err
	var unsupported *localrender.UnsupportedError
	if errors.As(err, &unsupported) {
		cause = notLocal("%s", unsupported.What)
	}
	var renderErr *localrender.RenderError
	if errors.As(err, &renderErr) {
		return fmt.Errorf("%s@%s: %w", localrender.RedactURL(repoURL), shortHash(renderErr.Commit), cause)
	}
	return cause
}

// checkDestination refuses apps deployed to another cluster than the one
// given: their live objects are not here.
func checkDestination(a *appSpec, c *kube.Cluster) error {
	switch {
	case a.destServer == inClusterServer, a.destServer == "" && a.destName == "in-cluster":
		return nil
	case a.destServer != "" && c.Config != nil && sameServer(a.destServer, c.Config.Host):
		return nil
	}
	dest := a.destServer
	if dest == "" {
		dest = "cluster " + a.destName
	}
	return fmt.Errorf("the Application deploys to %s, not to the cluster it is read from (context %s); to diff it, %w", dest, c.Context, errNotLocal)
}

func sameServer(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
	}
	return strings.EqualFold(ua.Host, ub.Host) && strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/")
}

func shortHash(h string) string { return h[:min(len(h), 12)] }

// pairs predicts every rendered object, then adds the tracked objects the
// render lacks as removed. Hooks are left out, as Argo CD's diff does.
func (p *predictor) pairs(ctx context.Context, objs []map[string]any) ([]diff.Pair, []string, error) {
	var placedObjs []placed
	rendered := map[diff.ObjectKey]bool{}
	for _, o := range objs {
		if isHook(o) {
			continue
		}
		t, err := p.place(o)
		if err != nil {
			return nil, nil, err
		}
		key := diff.KeyOf(t.obj.Object)
		if rendered[key] {
			continue // Argo CD keeps the first of duplicates too
		}
		rendered[key] = true
		placedObjs = append(placedObjs, t)
	}
	var removed []resourceRef
	for _, r := range p.app.resources {
		if !r.hook && !rendered[diff.ObjectKey{Group: r.group, Kind: r.kind, Namespace: r.namespace, Name: r.name}] {
			removed = append(removed, r)
		}
	}

	pairs := make([]diff.Pair, len(placedObjs)+len(removed))
	warnings := make([]string, len(pairs))
	errs := make([]error, len(pairs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(pairs)) {
		wg.Go(func() {
			for i := range jobs {
				if i < len(placedObjs) {
					var pr diff.Pair
					pr.Live, pr.Desired, warnings[i], errs[i] = p.predict(ctx, placedObjs[i])
					pairs[i] = pr
				} else {
					pairs[i].Live, errs[i] = p.tracked(ctx, removed[i-len(placedObjs)])
				}
			}
		})
	}
	for i := range pairs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	out := pairs[:0]
	var notes []string
	for i, pr := range pairs {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		if warnings[i] != "" {
			notes = append(notes, warnings[i])
		}
		if pr.Live != nil || pr.Desired != nil {
			out = append(out, pr)
		}
	}
	return out, notes, nil
}

// tracked reads an object the Application tracks; nil when it is gone or its
// kind is no longer served.
func (p *predictor) tracked(ctx context.Context, r resourceRef) (map[string]any, error) {
	m, err := p.mapper.RESTMapping(schema.GroupKind{Group: r.group, Kind: r.kind}, r.version)
	if err != nil {
		return nil, nil
	}
	obj, err := p.resource(m, r.namespace).Get(ctx, r.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s/%s: %w", r.kind, r.namespace, r.name, err)
	}
	return obj.Object, nil
}

// isHook reports a resource hook (Argo CD's or Helm's annotation): hooks run
// during a sync and are not part of the diff.
func isHook(obj map[string]any) bool {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	_, argo := ann["argocd.argoproj.io/hook"]
	_, helm := ann["helm.sh/hook"]
	return argo || helm
}
