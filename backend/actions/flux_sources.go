package actions

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

const sourceGroup = "source.toolkit.fluxcd.io"

// sourceResources are source-controller's kinds, by the resource name and
// the versions it has served them in, newest first.
var sourceResources = map[string]struct {
	resource string
	versions []string
}{
	"GitRepository":  {"gitrepositories", []string{"v1", "v1beta2"}},
	"OCIRepository":  {"ocirepositories", []string{"v1", "v1beta2"}},
	"HelmRepository": {"helmrepositories", []string{"v1", "v1beta2"}},
	"HelmChart":      {"helmcharts", []string{"v1", "v1beta2"}},
	"Bucket":         {"buckets", []string{"v1", "v1beta2"}},
}

// sourceRequest is the reconcile request of one source, as planned.
type sourceRequest struct {
	write  sideWrite
	change string
}

// sourceRequests plans the requests `flux reconcile --with-source` makes
// before the unit's own, in that order: the Kustomization's or Terraform's
// sourceRef; for a HelmRelease its chartRef (an OCIRepository, or a HelmChart
// after that chart's own source), or for a chart template the HelmChart
// helm-controller made (<namespace>-<name>) after its HelmRepository.
// Nothing waits between them: kustomize-controller and helm-controller
// watch their sources and reconcile again when a new artifact arrives.
func (env *planEnv) sourceRequests(u *model.Unit, f *model.FluxFacts, obj map[string]any, token string) ([]sourceRequest, error) {
	src := f.Source
	if src.Name == "" {
		return nil, refusef("%s names no source to request", u.Key.Ref())
	}
	var chain []model.Ref
	if u.Key.Engine == model.EngineHelmRelease {
		if _, byRef := lookup(obj, "spec", "chartRef"); !byRef {
			src = model.Ref{Kind: "HelmChart", Namespace: src.Namespace, Name: u.Key.Namespace + "-" + u.Key.Name}
		}
	}
	if src.Kind == "HelmChart" {
		chart, err := env.readSource(src)
		if err != nil {
			return nil, err
		}
		ref := flux.ReadSource(objread.New(chart).At("spec", "sourceRef"), src.Namespace)
		if ref.Name != "" && !staticSource(env, ref) {
			chain = append(chain, ref)
		}
	}
	chain = append(chain, src)
	var out []sourceRequest
	for _, ref := range chain {
		r, err := env.sourceRequest(ref, token)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// staticSource tells a HelmRepository of type oci, which source-controller
// does not reconcile (the flux CLI skips it too).
func staticSource(env *planEnv, ref model.Ref) bool {
	if ref.Kind != "HelmRepository" {
		return false
	}
	obj, err := env.readSource(ref)
	return err == nil && lookupString(obj, "spec", "type") == "oci"
}

func (env *planEnv) sourceRequest(ref model.Ref, token string) (sourceRequest, error) {
	gvr, err := env.sourceResource(ref.Kind)
	if err != nil {
		return sourceRequest{}, err
	}
	obj, err := env.readSource(ref)
	if err != nil {
		return sourceRequest{}, err
	}
	if suspended, _ := lookup(obj, "spec", "suspend"); suspended == true {
		return sourceRequest{}, refusef("the source %s is suspended: it would fetch nothing; resume it, or refresh without --with-source", ref)
	}
	ann := annotationsOf(obj)
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.setAnnotations(ann, map[string]string{flux.AnnotationRequestedAt: token})
	return sourceRequest{
		write:  sideWrite{gvr: gvr, namespace: ref.Namespace, name: ref.Name, patch: ops},
		change: ref.String() + ": metadata.annotations." + flux.AnnotationRequestedAt + ": " + orWord(ann[flux.AnnotationRequestedAt], "(unset)") + " → " + token,
	}, nil
}

func (env *planEnv) readSource(ref model.Ref) (map[string]any, error) {
	gvr, err := env.sourceResource(ref.Kind)
	if err != nil {
		return nil, err
	}
	obj, err := env.cluster.Dynamic.Resource(gvr).Namespace(ref.Namespace).Get(env.ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, &Refusal{Reason: "the source " + ref.String() + " does not exist", NotFound: true}
	case err != nil:
		return nil, fmt.Errorf("reading the source %s: %w", ref, err)
	}
	return obj.Object, nil
}

// sourceResource is the newest version of a source kind the cluster serves.
func (env *planEnv) sourceResource(kind string) (schema.GroupVersionResource, error) {
	r, known := sourceResources[kind]
	if !known {
		return schema.GroupVersionResource{}, refusef("driftdeck cannot request a source of kind %q", kind)
	}
	for _, v := range r.versions {
		list, err := env.cluster.Kube.Discovery().ServerResourcesForGroupVersion(sourceGroup + "/" + v)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return schema.GroupVersionResource{}, fmt.Errorf("discovering %s/%s: %w", sourceGroup, v, err)
		}
		for _, ar := range list.APIResources {
			if ar.Name == r.resource {
				return schema.GroupVersionResource{Group: sourceGroup, Version: v, Resource: r.resource}, nil
			}
		}
	}
	return schema.GroupVersionResource{}, refusef("the cluster serves no %s (%s, versions %s): is source-controller installed?", kind, sourceGroup, strings.Join(r.versions, ", "))
}
