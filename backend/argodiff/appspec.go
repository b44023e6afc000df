package argodiff

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/localrender"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// appSpec is what the local render reads from an Application.
type appSpec struct {
	name, namespace, project string
	// sources is spec.source, or each of spec.sources.
	sources       []sourceSpec
	syncRevision  string
	destServer    string
	destName      string
	destNamespace string
	// serverSideApply: the app syncs with ServerSideApply=true.
	serverSideApply bool
	resources       []resourceRef
	ignore          []ignoreRule
	// ignoreNote says which ignoreDifferences settings are not applied.
	ignoreNote string
}

type sourceSpec struct {
	repoURL, path, targetRevision string
	// revision to render: the one the controller compared (status.sync's
	// revision, or this source's of its revisions), else targetRevision.
	revision string
	// ref names the source for the others' "$ref/..." value files.
	ref string
	// chart names a chart of the Helm repository repoURL.
	chart     string
	helmChart localrender.HelmChart
	plugin    bool
	// kustomizeOverrides names spec.source.kustomize settings Argo CD would
	// apply on top of the kustomization (namePrefix, images, ...).
	kustomizeOverrides []string
	recurse            bool
	include, exclude   string
	jsonnet            bool
}

// resourceRef is one entry of status.resources.
type resourceRef struct {
	group, version, kind, namespace, name string
	hook                                  bool
}

// errNotLocal is wrapped by every "this app cannot be rendered locally" error.
var errNotLocal = errors.New("configure the Argo CD API server (ARGOCD_SERVER and ARGOCD_AUTH_TOKEN, or `argocd login`)")

func notLocal(format string, args ...any) error {
	return fmt.Errorf("%s is not supported locally: %w", fmt.Sprintf(format, args...), errNotLocal)
}

func readAppSpec(app map[string]any) (*appSpec, error) {
	r := objread.New(app)
	a := &appSpec{
		name:          r.Str("metadata", "name"),
		namespace:     r.Str("metadata", "namespace"),
		project:       r.Str("spec", "project"),
		syncRevision:  RevisionOf(app),
		destServer:    r.Str("spec", "destination", "server"),
		destName:      r.Str("spec", "destination", "name"),
		destNamespace: r.Str("spec", "destination", "namespace"),
	}
	switch {
	case r.Has("spec", "sourceHydrator"):
		return nil, notLocal("an Application with a source hydrator")
	case len(r.Slice("spec", "sources")) > 0:
		revisions := r.Strings("status", "sync", "revisions")
		for i, s := range r.Objects("spec", "sources") {
			src, err := readSource(s, fmt.Sprintf("spec.sources[%d]", i))
			if err != nil {
				return nil, err
			}
			if i < len(revisions) {
				src.revision = revisions[i]
			}
			a.sources = append(a.sources, src)
		}
	case r.Has("spec", "source"):
		src, err := readSource(r.At("spec", "source"), "spec.source")
		if err != nil {
			return nil, err
		}
		src.revision = r.Str("status", "sync", "revision")
		a.sources = []sourceSpec{src}
	default:
		return nil, errors.New("the Application has no spec.source")
	}
	for i := range a.sources {
		if a.sources[i].revision == "" {
			a.sources[i].revision = a.sources[i].targetRevision
		}
	}
	for _, opt := range r.Slice("spec", "syncPolicy", "syncOptions") {
		if o, _ := opt.(string); strings.EqualFold(strings.ReplaceAll(o, " ", ""), "ServerSideApply=true") {
			a.serverSideApply = true
		}
	}
	a.ignore, a.ignoreNote = readIgnoreRules(r)
	for _, res := range r.Objects("status", "resources") {
		hook, _ := res.Bool("hook")
		a.resources = append(a.resources, resourceRef{
			group: res.Str("group"), version: res.Str("version"), kind: res.Str("kind"),
			namespace: res.Str("namespace"), name: res.Str("name"), hook: hook,
		})
	}
	if errs := r.Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("reading the Application: %s", strings.Join(errs, "; "))
	}
	return a, nil
}

// readSource reads one source (at field, for messages).
func readSource(s *objread.Reader, field string) (sourceSpec, error) {
	src := sourceSpec{
		repoURL:        s.Str("repoURL"),
		path:           s.Str("path"),
		chart:          s.Str("chart"),
		targetRevision: s.Str("targetRevision"),
		ref:            s.Str("ref"),
		plugin:         s.Has("plugin"),
		include:        s.Str("directory", "include"),
		exclude:        s.Str("directory", "exclude"),
		jsonnet:        len(s.Map("directory", "jsonnet")) > 0,
	}
	if src.repoURL == "" {
		return src, fmt.Errorf("the Application has no %s.repoURL", field)
	}
	src.recurse, _ = s.Bool("directory", "recurse")
	var err error
	if src.helmChart, err = readHelm(s); err != nil {
		return src, fmt.Errorf("%s: %w", field, err)
	}
	for k := range s.Map("kustomize") {
		if k != "version" {
			src.kustomizeOverrides = append(src.kustomizeOverrides, k)
		}
	}
	slices.Sort(src.kustomizeOverrides)
	return src, nil
}

// refOnly: a source that only lends its files to the others' value files
// renders nothing itself.
func (s sourceSpec) refOnly() bool { return s.ref != "" && s.path == "" && s.chart == "" }

// refs are the Application's ref sources, at the revisions compared.
func (a *appSpec) refs() map[string]localrender.RefSource {
	out := map[string]localrender.RefSource{}
	for _, s := range a.sources {
		if s.ref != "" {
			out[s.ref] = localrender.RefSource{Repo: s.repoURL, Revision: s.revision}
		}
	}
	return out
}

// checkRenderable refuses what the local render cannot reproduce, before any
// repository is fetched.
func (s sourceSpec) checkRenderable() error {
	switch {
	case s.refOnly():
		return nil
	case s.plugin:
		return notLocal("a config management plugin source")
	case s.jsonnet:
		return notLocal("a Jsonnet directory source")
	case len(s.kustomizeOverrides) > 0:
		return notLocal("spec.source.kustomize (%s)", strings.Join(s.kustomizeOverrides, ", "))
	}
	return nil
}
