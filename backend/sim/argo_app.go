package sim

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// app is what the simulated controller reads of one Application.
type app struct {
	key objectKey
	obj *unstructured.Unstructured

	project                             string
	destNamespace, destServer, destName string
	sources                             []source
	multiSource                         bool
	historyLimit                        int64

	automated                    bool // syncPolicy.automated present and enabled
	selfHeal, prune              bool
	syncOptions                  []any
	retry                        map[string]any
	refresh, deletionApproved    string
	deleting                     bool
	syncStatus                   string
	syncRevisions                []string // status.sync.revision(s), one per source
	operation, opState           map[string]any
	phase, message               string
	startedAt, finishedAt        time.Time
	lastSyncedRevisions          []string // operationState.syncResult.revision(s)
	history, resourceList, conds []any
}

type source struct {
	repo, ref string
	raw       map[string]any
}

func readApp(obj *unstructured.Unstructured) *app {
	r := objread.New(obj.Object)
	a := &app{
		key:           objectKey{obj.GetNamespace(), obj.GetName()},
		obj:           obj,
		project:       r.Str("spec", "project"),
		destNamespace: r.Str("spec", "destination", "namespace"),
		destServer:    r.Str("spec", "destination", "server"),
		destName:      r.Str("spec", "destination", "name"),
		sources:       sourcesOf(r),
		multiSource:   r.Has("spec", "sources"),
		historyLimit:  10,
		syncOptions:   r.Slice("spec", "syncPolicy", "syncOptions"),
		retry:         r.Map("spec", "syncPolicy", "retry"),
		deleting:      obj.GetDeletionTimestamp() != nil,
		syncStatus:    r.Str("status", "sync", "status"),
		syncRevisions: revisions(r.At("status", "sync")),
		operation:     r.Map("operation"),
		opState:       r.Map("status", "operationState"),
		phase:         r.Str("status", "operationState", "phase"),
		message:       r.Str("status", "operationState", "message"),
		startedAt:     r.Time("status", "operationState", "startedAt"),
		finishedAt:    r.Time("status", "operationState", "finishedAt"),
		history:       r.Slice("status", "history"),
		resourceList:  r.Slice("status", "resources"),
		conds:         r.Slice("status", "conditions"),
	}
	a.lastSyncedRevisions = revisions(r.At("status", "operationState", "syncResult"))
	if r.Has("spec", "revisionHistoryLimit") {
		a.historyLimit = r.Int("spec", "revisionHistoryLimit")
	}
	if r.Has("spec", "syncPolicy", "automated") {
		enabled, set := r.Bool("spec", "syncPolicy", "automated", "enabled")
		a.automated = !set || enabled
		a.selfHeal, _ = r.Bool("spec", "syncPolicy", "automated", "selfHeal")
		a.prune, _ = r.Bool("spec", "syncPolicy", "automated", "prune")
	}
	ann := obj.GetAnnotations()
	a.refresh = ann[argocd.AnnotationRefresh]
	a.deletionApproved = ann[argocd.AnnotationDeletionApproved]
	return a
}

func sourcesOf(r *objread.Reader) []source {
	if srcs := r.Objects("spec", "sources"); len(srcs) > 0 {
		out := make([]source, 0, len(srcs))
		for _, s := range srcs {
			out = append(out, source{repo: s.Str("repoURL"), ref: s.Str("targetRevision"), raw: s.Map()})
		}
		return out
	}
	return []source{{repo: r.Str("spec", "source", "repoURL"), ref: r.Str("spec", "source", "targetRevision"), raw: r.Map("spec", "source")}}
}

// revisions reads revision or revisions (multi-source) of a sync status or
// sync result.
func revisions(r *objread.Reader) []string {
	if list := r.Slice("revisions"); len(list) > 0 {
		out := make([]string, 0, len(list))
		for _, v := range list {
			s, _ := v.(string)
			out = append(out, s)
		}
		return out
	}
	if s := r.Str("revision"); s != "" {
		return []string{s}
	}
	return nil
}

// resources returns a copy of status.resources with edit applied to each entry.
func (a *app) resources(edit func(i int, r map[string]any)) []any {
	out := make([]any, 0, len(a.resourceList))
	for i, it := range a.resourceList {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		c := runtime.DeepCopyJSON(m)
		edit(i, c)
		out = append(out, c)
	}
	return out
}

// driftTarget picks the resource a manual change hits: the first Deployment.
func (a *app) driftTarget() int {
	for i, it := range a.resourceList {
		if m, ok := it.(map[string]any); ok && m["kind"] == "Deployment" {
			return i
		}
	}
	return 0
}

func (a *app) automatedOp() bool {
	auto, _ := objread.New(a.operation).Bool("initiatedBy", "automated")
	return auto
}

func sameRevisions(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
