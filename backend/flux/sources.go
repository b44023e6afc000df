package flux

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// SourceKinds are the source-controller kinds a Flux unit (or a Terraform)
// can read, each with its resources newest served version first.
var SourceKinds = []struct {
	Kind     string
	Versions []schema.GroupVersionResource
}{
	{"GitRepository", sourceVersions("gitrepositories")},
	{"OCIRepository", sourceVersions("ocirepositories")},
	{"HelmRepository", sourceVersions("helmrepositories")},
	{"HelmChart", sourceVersions("helmcharts")},
	{"Bucket", sourceVersions("buckets")},
}

func sourceVersions(resource string) []schema.GroupVersionResource {
	return []schema.GroupVersionResource{
		{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: resource},
		{Group: "source.toolkit.fluxcd.io", Version: "v1beta2", Resource: resource},
	}
}

// Source is what driftdeck keeps of a source object: whether the
// source-controller could fetch it, and why not.
type Source struct {
	Ref       model.Ref
	Suspended bool
	Ready     *model.Condition // nil until the controller wrote one
	Revision  string           // status.artifact.revision: what the units read now
}

// ConvertSource reads a source object of the given kind.
func ConvertSource(kind string, obj map[string]any) Source {
	r := objread.New(obj)
	s := Source{
		Ref:      model.Ref{Kind: kind, Namespace: r.Str("metadata", "namespace"), Name: r.Str("metadata", "name")},
		Revision: model.Clip(r.Str("status", "artifact", "revision")),
	}
	s.Suspended, _ = r.Bool("spec", "suspend")
	if c := Condition(ReadConditions(r.At("status")), "Ready"); c != nil {
		// The index keeps every source seen: its texts are clipped as a
		// unit's are (a controller may write a whole command output there).
		ready := *c
		ready.Message, ready.Reason = model.Clip(ready.Message), model.Clip(ready.Reason)
		s.Ready = &ready
	}
	return s
}

// sourceKeep is what ConvertSource reads (not the artifact's metadata or
// the include list).
var sourceKeep = Keep{
	"apiVersion": nil, "kind": nil, "metadata": Metadata,
	"spec":   Keep{"suspend": nil},
	"status": Keep{"conditions": nil, "artifact": Keep{"revision": nil}},
}

// DecodeSource decodes a source object's JSON keeping what ConvertSource reads.
func DecodeSource(data []byte) (map[string]any, error) { return DecodeKept(data, sourceKeep) }

// Sources indexes the source objects of every context and tells each Flux
// unit how the source it reads is doing. It is safe for concurrent use.
type Sources struct {
	mu      sync.RWMutex
	sources map[sourceKey]Source
	// listed holds, per context, the kinds whose first list arrived: only
	// then is a source that is not there known to be missing.
	listed map[string]map[string]bool
}

type sourceKey struct {
	context string
	ref     model.Ref
}

// NewSources returns an empty index.
func NewSources() *Sources {
	return &Sources{sources: map[sourceKey]Source{}, listed: map[string]map[string]bool{}}
}

// Put records one source.
func (x *Sources) Put(context string, s Source) {
	x.mu.Lock()
	x.sources[sourceKey{context, s.Ref}] = s
	x.mu.Unlock()
}

// Remove forgets one source.
func (x *Sources) Remove(context, kind, namespace, name string) {
	x.mu.Lock()
	delete(x.sources, sourceKey{context, model.Ref{Kind: kind, Namespace: namespace, Name: name}})
	x.mu.Unlock()
}

// Replace sets every source of one kind in a context (in namespace, or in
// all namespaces when it is empty), after a list.
func (x *Sources) Replace(context, kind, namespace string, ss []Source) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k := range x.sources {
		if k.context == context && k.ref.Kind == kind && (namespace == "" || k.ref.Namespace == namespace) {
			delete(x.sources, k)
		}
	}
	for _, s := range ss {
		x.sources[sourceKey{context, s.Ref}] = s
	}
	if x.listed[context] == nil {
		x.listed[context] = map[string]bool{}
	}
	x.listed[context][kind] = true
}

// lookup returns the source a unit reads, and whether its kind was listed.
func (x *Sources) lookup(context string, ref model.Ref) (Source, bool, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s, ok := x.sources[sourceKey{context, ref}]
	return s, ok, x.listed[context][ref.Kind]
}

// Rule words for a unit held up by its source.
const (
	ruleSourceNotReady = "its source is not Ready: the controller applies nothing new until the source-controller fetches it again (fix what the source's message names, then refresh with --with-source)"
	ruleSourceMissing  = "its sourceRef names an object that does not exist: the controller cannot run until it is created or the ref is fixed"
)

// Classify implements store.Classifier. Every Flux unit learns its source's
// state (SourceState); one that failed to get its artifact is stuck on the
// spot when the source itself says it is not ready, with the source's own
// reason: waiting longer changes nothing until somebody fixes the source.
func (x *Sources) Classify(u *model.Unit, now time.Time) bool {
	f := u.FluxRuntime()
	if f == nil || f.Source.Name == "" {
		return false
	}
	s, found, listed := x.lookup(u.Key.Context, f.Source)
	if !listed {
		return false // not watched (unknown kind, or no permission): the unit's own conditions rule
	}
	state := &model.SourceState{Ref: f.Source, Missing: !found, Suspended: s.Suspended, Revision: s.Revision}
	if s.Ready != nil {
		state.Ready, state.Reason, state.Message, state.Since = s.Ready.Status, s.Ready.Reason, s.Ready.Message, s.Ready.Since
	}
	u.SourceState = state
	ready := Condition(f.Conditions, "Ready")
	waiting := Is(ready, "False") && ready.Reason == ReasonArtifactFailed
	if f.Suspended || !waiting {
		return false
	}
	// The source's own state, not time, says the unit is stuck.
	stuck := func(reason, rule string) {
		u.Observed, u.RunReason, u.StuckRule, u.Persisting = model.Stuck, reason, rule, ""
	}
	name := f.Source.String()
	switch {
	case state.Missing:
		stuck("the source "+name+" does not exist", ruleSourceMissing)
	case state.Ready == "False":
		stuck("the source "+name+" is not ready: "+state.Reason+": "+model.FirstLine(state.Message), ruleSourceNotReady)
		if !state.Since.IsZero() {
			u.RunSince = state.Since
		}
	case state.Suspended:
		stuck("the source "+name+" is suspended and has no artifact to read", ruleSourceNotReady)
	}
	return false
}
