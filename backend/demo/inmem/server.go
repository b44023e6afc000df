// Package inmem is an in-process Kubernetes API for the demo control plane and
// for fast tests: client-go's fake dynamic client and fake clientset, backed by
// an object store that keeps the apiserver's rules where driftdeck and the
// simulated controllers depend on them. Every write gets a new
// metadata.resourceVersion from one counter; patches are applied atomically and
// a resourceVersion in the patch is a precondition (409 Conflict when stale); a
// failed JSON-patch test answers 422; metadata.generation follows spec changes;
// a status subresource splits status from the rest; dry runs store nothing;
// generateName works; watches replay from a resourceVersion and never drop or
// panic on a slow reader. The stock fake tracker does none of this: it loses
// concurrent writes and leaves resourceVersion empty.
package inmem

import (
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
)

// Resource describes one resource the server serves.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
	// Status is true when the resource has a status subresource: writes to
	// the main resource leave status alone and status writes touch only status.
	Status     bool
	ShortNames []string
	Verbs      []string // for discovery; the usual verbs when empty
}

// GVK is the resource's group, version and kind.
func (r Resource) GVK() schema.GroupVersionKind { return r.GVR.GroupVersion().WithKind(r.Kind) }

// historySize bounds how many past events a watch can resume from; older
// resourceVersions answer 410 Gone and the client relists, as with etcd
// compaction.
const historySize = 2048

type objKey struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

type event struct {
	rv  int64
	typ watch.EventType
	gvr schema.GroupVersionResource
	obj map[string]any // never modified once recorded
	ns  string
}

// Server holds the objects. It is safe for concurrent use.
type Server struct {
	mu          sync.Mutex
	rv          int64
	resources   map[schema.GroupVersionResource]Resource
	order       []Resource
	objects     map[objKey]map[string]any // stored objects are never modified in place
	history     []event
	compactedRV int64
	watchers    map[*watcher]struct{}
	now         func() time.Time
}

// New returns an empty server serving the given resources.
func New(resources ...Resource) *Server {
	s := &Server{
		resources: map[schema.GroupVersionResource]Resource{},
		objects:   map[objKey]map[string]any{},
		watchers:  map[*watcher]struct{}{},
		now:       time.Now,
	}
	for _, r := range resources {
		s.resources[r.GVR] = r
		s.order = append(s.order, r)
	}
	return s
}

// Resources lists the served resources in the order given to New.
func (s *Server) Resources() []Resource { return append([]Resource(nil), s.order...) }

// Serves reports whether the server knows the resource.
func (s *Server) Serves(gvr schema.GroupVersionResource) bool {
	_, ok := s.resources[gvr]
	return ok
}

// Seed stores objects as they are, keeping their metadata (creation time, uid,
// generation) where set: the demo estate is born with a history. It fills what
// is missing the way a create would. The server takes the objects over: the
// caller must not modify them afterwards (not copying them keeps the demo's
// start fast). Their values must be JSON types (int64, not int).
func (s *Server) Seed(gvr schema.GroupVersionResource, objs ...*unstructured.Unstructured) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, ok := s.resources[gvr]
	if !ok {
		return fmt.Errorf("seeding %s: not served", gvr)
	}
	for _, o := range objs {
		obj := o.Object
		if err := s.checkScope(res, obj, namespaceOf(obj)); err != nil {
			return err
		}
		k := keyOf(gvr, obj)
		if _, dup := s.objects[k]; dup {
			return apierrors.NewAlreadyExists(gvr.GroupResource(), k.name)
		}
		md := metadata(obj)
		if md["uid"] == nil {
			md["uid"] = string(uuid.NewUUID())
		}
		if md["creationTimestamp"] == nil {
			md["creationTimestamp"] = s.now().UTC().Format(time.RFC3339)
		}
		if md["generation"] == nil {
			md["generation"] = int64(1)
		}
		setAPIVersionKind(obj, res)
		s.commitLocked(k, obj, watch.Added)
	}
	return nil
}

// commitLocked stores a new version of an object (or removes it when typ is
// Deleted) and tells the watchers.
func (s *Server) commitLocked(k objKey, obj map[string]any, typ watch.EventType) {
	s.rv++
	if typ == watch.Deleted {
		delete(s.objects, k)
	} else {
		metadata(obj)["resourceVersion"] = fmt.Sprint(s.rv)
		s.objects[k] = obj
	}
	ev := event{rv: s.rv, typ: typ, gvr: k.gvr, obj: obj, ns: k.namespace}
	s.history = append(s.history, ev)
	if len(s.history) > historySize {
		drop := len(s.history) - historySize
		s.compactedRV = s.history[drop-1].rv
		s.history = append([]event(nil), s.history[drop:]...)
	}
	for w := range s.watchers {
		w.offer(ev)
	}
}

func (s *Server) resource(gvr schema.GroupVersionResource) (Resource, error) {
	res, ok := s.resources[gvr]
	if !ok {
		return Resource{}, apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	return res, nil
}

func (s *Server) checkScope(res Resource, obj map[string]any, requestNS string) error {
	ns := namespaceOf(obj)
	if !res.Namespaced {
		if ns != "" || requestNS != "" {
			return apierrors.NewBadRequest(fmt.Sprintf("%s is cluster-scoped: no namespace allowed", res.GVR.Resource))
		}
		return nil
	}
	if requestNS == "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s is namespaced: a namespace is required", res.GVR.Resource))
	}
	if ns != "" && ns != requestNS {
		return apierrors.NewBadRequest(fmt.Sprintf("the namespace of the object (%s) does not match the namespace on the request (%s)", ns, requestNS))
	}
	metadata(obj)["namespace"] = requestNS
	return nil
}

func keyOf(gvr schema.GroupVersionResource, obj map[string]any) objKey {
	return objKey{gvr: gvr, namespace: namespaceOf(obj), name: nameOf(obj)}
}

func setAPIVersionKind(obj map[string]any, res Resource) {
	obj["apiVersion"] = res.GVR.GroupVersion().String()
	obj["kind"] = res.Kind
}

func metadata(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		obj["metadata"] = md
	}
	return md
}

func namespaceOf(obj map[string]any) string {
	s, _ := metadata(obj)["namespace"].(string)
	return s
}

func nameOf(obj map[string]any) string {
	s, _ := metadata(obj)["name"].(string)
	return s
}

func resourceVersionOf(obj map[string]any) string {
	s, _ := metadata(obj)["resourceVersion"].(string)
	return s
}

func uidOf(obj map[string]any) types.UID {
	s, _ := metadata(obj)["uid"].(string)
	return types.UID(s)
}

func deepCopy(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	return runtime.DeepCopyJSON(obj)
}

func conflict(gvr schema.GroupVersionResource, name string) error {
	return apierrors.NewConflict(gvr.GroupResource(), name,
		fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
}

func nowTime(t time.Time) string { return metav1.NewTime(t).UTC().Format(time.RFC3339) }
