package fluxdiff

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// helm-controller labels every object it releases with its HelmRelease
// (its "origin labels" post-renderer).
const (
	LabelHelmReleaseName      = "helm.toolkit.fluxcd.io/name"
	LabelHelmReleaseNamespace = "helm.toolkit.fluxcd.io/namespace"
)

// helmRelease is what a HelmRelease diff reads of the object.
type helmRelease struct {
	key                    model.Key
	r                      *objread.Reader
	releaseName, namespace string
	storage                string
	history                *objread.Reader // status.history[0]: the current release; nil when none
	chart                  *objread.Reader // spec.chart.spec
	attempted              string          // status.lastAttemptedRevision
	postRenderers          bool
}

func readHelmRelease(k model.Key, obj map[string]any) *helmRelease {
	r := objread.New(obj)
	h := &helmRelease{key: k, r: r, chart: r.At("spec", "chart", "spec"), attempted: r.Str("status", "lastAttemptedRevision")}
	h.namespace = firstOf(r.Str("spec", "targetNamespace"), k.Namespace)
	h.releaseName = r.Str("spec", "releaseName")
	if h.releaseName == "" {
		h.releaseName = k.Name
		if t := r.Str("spec", "targetNamespace"); t != "" {
			h.releaseName = t + "-" + k.Name
		}
	}
	if hist := r.Objects("status", "history"); len(hist) > 0 {
		h.history = hist[0]
		h.releaseName = firstOf(hist[0].Str("name"), h.releaseName)
		h.namespace = firstOf(hist[0].Str("namespace"), h.namespace)
	}
	h.storage = firstOf(r.Str("status", "storageNamespace"), r.Str("spec", "storageNamespace"), k.Namespace)
	h.postRenderers = len(r.Slice("spec", "postRenderers")) > 0
	return h
}

// diffHelmRelease renders the chart the HelmRelease asks for with its
// values, as helm-controller would upgrade to, and compares it with the
// manifest of the release it last made (as `helm diff upgrade` does).
func (d *Differ) diffHelmRelease(ctx context.Context, c *kube.Cluster, k model.Key) (*argodiff.Result, error) {
	obj, err := get(ctx, c.Dynamic, flux.HelmReleases, k.Namespace, k.Name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	h := readHelmRelease(k, obj)
	if h.r.Has("spec", "chartRef") {
		ref := flux.ReadSource(h.r.At("spec", "chartRef"), k.Namespace)
		return nil, writeguard.Refusef("%s reads its chart from %s (spec.chartRef): only charts of a HelmRepository or a GitRepository are rendered locally", k.Ref(), ref)
	}
	values, warnings, err := releaseValues(ctx, c, h.r, k.Namespace)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Ref(), err)
	}
	chart, err := d.helmChart(ctx, c, h, values)
	if err != nil {
		return nil, err
	}
	rendered, source, w, err := d.renderChart(ctx, c, h, chart)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, w...)
	live, where, w, err := releasedObjects(ctx, c, h)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, w...)
	if h.postRenderers {
		warnings = append(warnings, "spec.postRenderers are not applied: the objects show as the chart renders them")
	}
	if len(h.chart.Strings("valuesFiles")) > 0 {
		warnings = append(warnings, "spec.chart.spec.valuesFiles are not applied: the chart's own values.yaml and the HelmRelease's values are")
	}
	inNamespace(live, h.namespace)
	desired := desiredObjects(rendered.Objects, k)
	inNamespace(desired, h.namespace)
	report, err := diff.Objects(releasePairs(live, desired), d.DiffOptions)
	if err != nil {
		return nil, err
	}
	return &argodiff.Result{
		Report:       report,
		Revision:     rendered.Commit,
		SyncRevision: h.attempted,
		Source:       source + ", against " + where,
		Warnings:     warnings,
	}, nil
}

// helmChart is the render helm-controller would make: the release's name
// and namespace, the cluster's capabilities (helm-controller reads them
// from the cluster), the merged values; no CRDs (a release's manifest
// holds none).
func (d *Differ) helmChart(ctx context.Context, c *kube.Cluster, h *helmRelease, values map[string]any) (localrender.HelmChart, error) {
	disco := memory.NewMemCacheClient(c.Kube.Discovery())
	info, err := disco.ServerVersion()
	if err != nil {
		return localrender.HelmChart{}, fmt.Errorf("reading the cluster's version for the Helm render: %w", err)
	}
	apis, err := kube.ServedAPIVersions(disco)
	if err != nil {
		return localrender.HelmChart{}, fmt.Errorf("the Helm render: %w", err)
	}
	y, err := yaml.Marshal(values)
	if err != nil {
		return localrender.HelmChart{}, err
	}
	return localrender.HelmChart{
		ReleaseName: h.releaseName, Namespace: h.namespace,
		KubeVersion: info.GitVersion, APIVersions: apis, Values: string(y),
	}, nil
}

// renderChart renders the chart from its source: a HelmRepository's chart
// at the version source-controller resolved (the HelmChart's artifact), or
// the chart directory of a GitRepository at its artifact's commit.
func (d *Differ) renderChart(ctx context.Context, c *kube.Cluster, h *helmRelease, chart localrender.HelmChart) (localrender.Rendered, string, []string, error) {
	k := h.key
	ref := flux.ReadSource(h.chart.At("sourceRef"), k.Namespace)
	name := h.chart.Str("chart")
	if ref.Kind != "HelmRepository" && ref.Kind != "GitRepository" {
		return localrender.Rendered{}, "", nil, writeguard.Refusef("%s reads its chart from %s: %s sources are not rendered locally, only HelmRepository and GitRepository ones", k.Ref(), ref, ref.Kind)
	}
	src, err := get(ctx, c.Dynamic, sourceKind(ref.Kind), ref.Namespace, ref.Name)
	if err != nil {
		return localrender.Rendered{}, "", nil, fmt.Errorf("reading its source %s: %w", ref, err)
	}
	sr := objread.New(src)
	url := sr.Str("spec", "url")
	if d.Reach != nil {
		if err := d.Reach(url); err != nil {
			return localrender.Rendered{}, "", nil, fmt.Errorf("%s reads %s: %w", k.Ref(), ref, err)
		}
	}
	var warnings []string
	if ref.Kind == "GitRepository" {
		rev := sr.Str("status", "artifact", "revision")
		if rev == "" {
			rev = firstOf(sr.Str("spec", "ref", "commit"), sr.Str("spec", "ref", "tag"), sr.Str("spec", "ref", "branch"))
		}
		chart.Path = name
		rendered, err := localrender.Helm(ctx, d.CacheDir, url, commitOf(rev), chart)
		if err != nil {
			return rendered, "", nil, renderFailed(url, err)
		}
		return rendered, fmt.Sprintf("local render of chart %s (%s) from %s@%s", rendered.Chart, name, localrender.RedactURL(url), short(rendered.Commit)), nil, nil
	}
	if sr.Str("spec", "type") == "oci" {
		return localrender.Rendered{}, "", nil, writeguard.Refusef("%s reads %s, an OCI registry: only http(s) Helm repositories are rendered locally", k.Ref(), ref)
	}
	version, w := chartVersion(ctx, c, h, ref)
	warnings = append(warnings, w...)
	chart.Chart = name
	rendered, err := localrender.Helm(ctx, d.CacheDir, url, version, chart)
	if err != nil {
		return rendered, "", nil, renderFailed(url, err)
	}
	return rendered, fmt.Sprintf("local render of chart %s %s from %s", name, rendered.Commit, localrender.RedactURL(url)), warnings, nil
}

// chartVersion is the version helm-controller installs: the one
// source-controller resolved into the HelmChart it made for the release
// (<namespace>-<name> in the source's namespace), else the HelmRelease's
// version or range, resolved here against the repository's index.
func chartVersion(ctx context.Context, c *kube.Cluster, h *helmRelease, ref model.Ref) (string, []string) {
	want := firstOf(h.chart.Str("version"), "*")
	hc, err := get(ctx, c.Dynamic, sourceKind("HelmChart"), ref.Namespace, h.key.Namespace+"-"+h.key.Name)
	if err == nil {
		if v := objread.New(hc).Str("status", "artifact", "revision"); v != "" {
			return v, nil
		}
	}
	return want, []string{fmt.Sprintf("source-controller has resolved no chart version yet: version %q is resolved from the repository's index", want)}
}

// releasedObjects are the objects of the release the HelmRelease last made,
// from Helm's storage Secret; none when nothing was released yet.
func releasedObjects(ctx context.Context, c *kube.Cluster, h *helmRelease) ([]map[string]any, string, []string, error) {
	if h.history == nil {
		return nil, "no release yet", []string{"helm-controller has released nothing yet: the whole chart is installed"}, nil
	}
	name, version := h.history.Str("name"), int(h.history.Int("version"))
	secret := restree.ReleaseSecret(name, version)
	where := fmt.Sprintf("Helm release %s v%d (Secret %s/%s)", name, version, h.storage, secret)
	s, err := c.Kube.CoreV1().Secrets(h.storage).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: reading %s: %w", h.key.Ref(), where, err)
	}
	rel, err := restree.DecodeRelease(s.Data["release"])
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: %s: %w", h.key.Ref(), where, err)
	}
	objs, err := diff.Parse([]byte(rel.Manifest))
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: the manifest of %s: %w", h.key.Ref(), where, err)
	}
	where = fmt.Sprintf("Helm release %s v%d (chart %s %s)", name, version, rel.Chart, rel.ChartVersion)
	return objs, where, nil, nil
}

// desiredObjects are the rendered objects a release keeps (no hooks: Helm
// keeps them apart, and runs the tests only on request), labelled as
// helm-controller labels them.
func desiredObjects(objs []map[string]any, k model.Key) []map[string]any {
	var out []map[string]any
	for _, o := range objs {
		r := objread.New(o)
		if _, hook := r.StringMap("metadata", "annotations")["helm.sh/hook"]; hook {
			continue
		}
		md, _ := o["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			o["metadata"] = md
		}
		labels, _ := md["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
			md["labels"] = labels
		}
		labels[LabelHelmReleaseName], labels[LabelHelmReleaseNamespace] = k.Name, k.Namespace
		out = append(out, o)
	}
	return out
}

// inNamespace places the objects rendered without a namespace where Helm
// installs them: in the release's namespace, unless their kind has none.
func inNamespace(objs []map[string]any, ns string) {
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		kind, _ := o["kind"].(string)
		if md != nil && md["namespace"] == nil && !restree.ClusterScoped(kind) {
			md["namespace"] = ns
		}
	}
}

// releasePairs pairs the released objects with the rendered ones by kind,
// namespace and name: a rendered object the release lacks is added, a
// released one the render lacks is removed by the upgrade.
func releasePairs(live, desired []map[string]any) []diff.Pair {
	index := map[diff.ObjectKey]int{}
	pairs := make([]diff.Pair, 0, len(live)+len(desired))
	for _, o := range live {
		index[diff.KeyOf(o)] = len(pairs)
		pairs = append(pairs, diff.Pair{Live: o})
	}
	for _, o := range desired {
		if i, ok := index[diff.KeyOf(o)]; ok && pairs[i].Desired == nil {
			pairs[i].Desired = o
			continue
		}
		pairs = append(pairs, diff.Pair{Desired: o})
	}
	return pairs
}

// renderFailed names the commit (or chart version) a render failed at.
func renderFailed(url string, err error) error {
	var re *localrender.RenderError
	if errors.As(err, &re) {
		return fmt.Errorf("%s@%s: %w", localrender.RedactURL(url), short(re.Commit), err)
	}
	return err
}

// sourceKind is the resources of a source kind, newest version first.
func sourceKind(kind string) []schema.GroupVersionResource {
	for _, s := range flux.SourceKinds {
		if s.Kind == kind {
			return s.Versions
		}
	}
	return nil
}
