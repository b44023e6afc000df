package fluxdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// What kustomize-controller applies with and marks its objects with.
const (
	FieldManager        = "kustomize-controller"
	LabelName           = "kustomize.toolkit.fluxcd.io/name"
	LabelNamespace      = "kustomize.toolkit.fluxcd.io/namespace"
	annotationSubstDisp = "kustomize.toolkit.fluxcd.io/substitute"
)

// GitRepositories are the source resources read, newest version first.
var GitRepositories = []schema.GroupVersionResource{
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"},
	{Group: "source.toolkit.fluxcd.io", Version: "v1beta2", Resource: "gitrepositories"},
}

// Differ diffs Kustomizations by key.
type Differ struct {
	Cluster func(context string) (*kube.Cluster, bool)
	// CacheDir holds the repository clones; empty is the user cache.
	CacheDir string
	// Reach, when set, refuses the repositories not to be fetched (the
	// demo's, which never reaches the network); nil fetches any.
	Reach       func(repoURL string) error
	DiffOptions diff.Options
}

// Diff builds a Kustomization and compares it with the cluster, or renders
// a HelmRelease's chart and compares it with its release.
func (d *Differ) Diff(ctx context.Context, k model.Key) (*argodiff.Result, error) {
	if k.Engine != model.EngineKustomization && k.Engine != model.EngineHelmRelease {
		return nil, fmt.Errorf("%s is not a Flux Kustomization or HelmRelease", k.Ref())
	}
	c, ok := d.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	if k.Engine == model.EngineHelmRelease {
		return d.diffHelmRelease(ctx, c, k)
	}
	ks, err := get(ctx, c.Dynamic, flux.Kustomizations, k.Namespace, k.Name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	r := objread.New(ks)
	ref := flux.ReadSource(r.At("spec", "sourceRef"), k.Namespace)
	if ref.Kind != "GitRepository" {
		// Refused, not failed: the diff does not exist, which is not
		// "differences found" (exit 1) to a script.
		return nil, writeguard.Refusef("%s reads %s: %s sources are not diffed, only GitRepository sources are built locally (flux diff kustomization --path on a local copy of its content builds it)", k.Ref(), ref, ref.Kind)
	}
	src, err := get(ctx, c.Dynamic, GitRepositories, ref.Namespace, ref.Name)
	if err != nil {
		return nil, fmt.Errorf("reading its source %s: %w", ref, err)
	}
	sr := objread.New(src)
	url := sr.Str("spec", "url")
	if d.Reach != nil {
		if err := d.Reach(url); err != nil {
			return nil, fmt.Errorf("%s reads %s: %w", k.Ref(), ref, err)
		}
	}
	attempted := r.Str("status", "lastAttemptedRevision")
	artifact := sr.Str("status", "artifact", "revision")
	var warnings []string
	rev := attempted
	switch {
	case rev == "" && artifact != "":
		rev = artifact
	case rev == "":
		rev = firstOf(sr.Str("spec", "ref", "commit"), sr.Str("spec", "ref", "tag"), sr.Str("spec", "ref", "branch"))
	case artifact != "" && artifact != attempted:
		warnings = append(warnings, fmt.Sprintf("the source has a newer revision %s than the one built (%s, the last attempted): the next reconcile applies that one", artifact, attempted))
	}

	spec, _ := ks["spec"].(map[string]any)
	rendered, err := localrender.Flux(ctx, d.CacheDir, url, commitOf(rev), spec)
	if err != nil {
		return nil, renderFailed(url, err)
	}
	commit, objs := rendered.Commit, rendered.Objects
	if vars := r.StringMap("spec", "postBuild", "substitute"); len(vars) > 0 {
		for _, o := range objs {
			if objread.New(o).StringMap("metadata", "annotations")[annotationSubstDisp] != "disabled" {
				substitute(o, vars)
			}
		}
	}
	if len(r.Slice("spec", "postBuild", "substituteFrom")) > 0 {
		warnings = append(warnings, "spec.postBuild.substituteFrom is not applied: variables from ConfigMaps and Secrets show as written")
	}
	p := &predictor{dyn: c.Dynamic, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Kube.Discovery())), ks: k}
	pairs, notes, err := p.pairs(ctx, objs)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, notes...)
	removed, notes, err := p.pruned(ctx, r, pairs)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, notes...)
	report, err := diff.Objects(append(pairs, removed...), d.DiffOptions)
	if err != nil {
		return nil, err
	}
	return &argodiff.Result{
		Report:       report,
		Revision:     commit,
		SyncRevision: attempted,
		Source:       fmt.Sprintf("local build of %s@%s path %s", localrender.RedactURL(url), short(commit), orRoot(r.Str("spec", "path"))),
		Warnings:     warnings,
	}, nil
}

type predictor struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
	ks     model.Key
}

func (p *predictor) resource(m *meta.RESTMapping, ns string) dynamic.ResourceInterface {
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return p.dyn.Resource(m.Resource).Namespace(ns)
	}
	return p.dyn.Resource(m.Resource)
}

// pairs dry-runs every built object as kustomize-controller applies it:
// server-side, forced, under its field manager, with its owner labels.
func (p *predictor) pairs(ctx context.Context, objs []map[string]any) ([]diff.Pair, []string, error) {
	var out []diff.Pair
	var notes []string
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o}
		labels := u.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[LabelName], labels[LabelNamespace] = p.ks.Name, p.ks.Namespace
		u.SetLabels(labels)
		gvk := u.GroupVersionKind()
		m, err := p.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(err) {
			notes = append(notes, fmt.Sprintf("%s %s: the cluster does not serve this kind; shown as built, without a dry run", gvk.Kind, u.GetName()))
			out = append(out, diff.Pair{Desired: u.Object})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", gvk.Kind, u.GetName(), err)
		}
		if m.Scope.Name() == meta.RESTScopeNameNamespace && u.GetNamespace() == "" {
			notes = append(notes, fmt.Sprintf("%s %s has no namespace and spec.targetNamespace is not set: the apply fails", gvk.Kind, u.GetName()))
			continue
		}
		ri := p.resource(m, u.GetNamespace())
		live, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			live = nil
		case err != nil:
			return nil, nil, fmt.Errorf("reading %s %s: %w", gvk.Kind, u.GetName(), err)
		}
		data, err := json.Marshal(u.Object)
		if err != nil {
			return nil, nil, err
		}
		force := true
		dry, err := ri.Patch(ctx, u.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager, Force: &force})
		pr := diff.Pair{Desired: u.Object}
		if live != nil {
			pr.Live = live.Object
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s %s: dry run refused, the apply would fail: %s", gvk.Kind, u.GetName(), apiMessage(err)))
		} else {
			pr.Desired = dry.Object
		}
		out = append(out, pr)
	}
	return out, notes, nil
}

// pruned lists the inventory's objects the build no longer has: deleted at
// the next reconcile when spec.prune is true, left in place otherwise.
func (p *predictor) pruned(ctx context.Context, r *objread.Reader, built []diff.Pair) ([]diff.Pair, []string, error) {
	have := map[diff.ObjectKey]bool{}
	for _, pr := range built {
		have[diff.KeyOf(pr.Desired)] = true
	}
	prune, _ := r.Bool("spec", "prune")
	var out []diff.Pair
	var notes []string
	for _, e := range r.Objects("status", "inventory", "entries") {
		parts := strings.Split(e.Str("id"), "_")
		if len(parts) != 4 {
			continue
		}
		ns, name, group, kind := parts[0], parts[1], parts[2], parts[3]
		if have[diff.ObjectKey{Group: group, Kind: kind, Namespace: ns, Name: name}] {
			continue
		}
		if !prune {
			notes = append(notes, fmt.Sprintf("%s %s is no longer in the source; spec.prune is false, so it stays", kind, name))
			continue
		}
		m, err := p.mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind}, e.Str("v"))
		if err != nil {
			continue
		}
		live, err := p.resource(m, ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s %s: %w", kind, name, err)
		}
		out = append(out, diff.Pair{Live: live.Object})
	}
	return out, notes, nil
}

// get reads an object through the first version the cluster serves.
func get(ctx context.Context, dyn dynamic.Interface, gvrs []schema.GroupVersionResource, ns, name string) (map[string]any, error) {
	var last error
	for _, gvr := range gvrs {
		obj, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			return obj.Object, nil
		}
		if kube.ObjectMissing(err) {
			return nil, fmt.Errorf("%s/%s does not exist", ns, name)
		}
		last = err
	}
	return nil, last
}

// commitOf reads the commit of a Flux revision: "main@sha1:<hash>" (v1),
// "main/<hash>" (older), or a plain branch, tag or hash.
func commitOf(rev string) string {
	if _, h, ok := strings.Cut(rev, "@"); ok {
		if _, hash, ok := strings.Cut(h, ":"); ok {
			return hash
		}
		return h
	}
	if i := strings.LastIndex(rev, "/"); i >= 0 && len(rev)-i-1 == 40 {
		return rev[i+1:]
	}
	return rev
}

func apiMessage(err error) string {
	if s, ok := err.(apierrors.APIStatus); ok && s.Status().Message != "" {
		return s.Status().Message
	}
	return err.Error()
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func short(h string) string { return h[:min(len(h), 12)] }

func orRoot(p string) string {
	if p == "" {
		return "./"
	}
	return p
}
