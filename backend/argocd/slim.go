package argocd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	gojson "github.com/goccy/go-json"
)

// DecodeSlim decodes an Application's JSON into a map holding only the
// fields Convert reads. A 14 KB Application is mostly its resource list,
// history and last sync result; decoding those into maps is most of the cost
// of watching thousands of them, and Convert needs three fields of them.
// It returns an error when the JSON does not have the Application's types;
// the caller then decodes the whole object, so that Convert can say which
// field could not be read.
func DecodeSlim(data []byte) (map[string]any, error) {
	var a slimApp
	if err := unmarshalFast(data, &a); err != nil {
		return nil, err
	}
	var again slimNames
	running := a.running()
	if running || a.Status != nil && slices.ContainsFunc(a.Status.Resources, (*slimResource).isApplication) {
		// An app of apps, or a sync running: read the resources' names (and
		// waves, and the running sync's phases) in a second pass, so that
		// the other Applications' resource names are never decoded.
		if err := unmarshalFast(data, &again); err != nil {
			return nil, err
		}
	}
	return a.toMap(again, running), nil
}

// slimNames is what the second pass reads.
type slimNames struct {
	Status struct {
		Resources      []slimChild `json:"resources"`
		OperationState struct {
			SyncResult struct {
				Resources []struct {
					SyncPhase *string `json:"syncPhase"`
				} `json:"resources"`
			} `json:"syncResult"`
		} `json:"operationState"`
	} `json:"status"`
}

// running: a sync runs, whose phase and wave Convert reads.
func (a *slimApp) running() bool {
	return a.Status != nil && a.Status.OperationState != nil && a.Status.OperationState.Phase != nil && *a.Status.OperationState.Phase == "Running"
}

// unmarshalFast decodes as encoding/json does, in one pass: encoding/json
// reads every byte twice (it checks the whole value before it decodes), and
// this decoder is what a start-up of thousands of Applications spends its
// CPU on (BenchmarkTheListOfFiveThousandApplications: 651 ms for the list
// with encoding/json, 395 ms with go-json). A panic of its own, on input no
// fuzz run found, is an error: the caller then decodes the whole object.
func unmarshalFast(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoding an Application: %v", r)
		}
	}()
	return gojson.Unmarshal(data, v)
}

// SlimFields are the paths of an Application that DecodeSlim reads, for
// argocd-server's fields parameter: its live feed then sends about half of
// each of the bench's Applications (their history's sources, last sync
// result and resources' health left out), and no event that changes none
// of them.
var SlimFields = []string{
	"apiVersion", "kind", "metadata", "operation",
	"spec.project", "spec.source", "spec.sources", "spec.destination", "spec.syncPolicy.automated",
	"status.sync", "status.health.status", "status.conditions", "status.reconciledAt", "status.history.id",
	"status.operationState.phase", "status.operationState.message", "status.operationState.startedAt",
	"status.operationState.finishedAt", "status.operationState.retryCount",
	"status.resources.status", "status.resources.requiresPruning", "status.resources.group",
	"status.resources.kind", "status.resources.namespace", "status.resources.name", "status.resources.syncWave",
	"status.resources.hook",
	"status.operationState.syncResult.resources.syncPhase",
}

type slimApp struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   *slimMetadata   `json:"metadata"`
	Spec       *slimSpec       `json:"spec"`
	Operation  json.RawMessage `json:"operation"`
	Status     *slimStatus     `json:"status"`
}

// slimMetadata is what Convert reads of the metadata. managedFields, a
// third of an Application as an API server sends it, is skipped, not
// decoded into maps; the numbers and free-form members decode as they
// would into a map, so Convert judges them alike.
type slimMetadata struct {
	Name              *string        `json:"name"`
	Namespace         *string        `json:"namespace"`
	UID               *string        `json:"uid"`
	ResourceVersion   *string        `json:"resourceVersion"`
	Generation        *float64       `json:"generation"`
	CreationTimestamp *string        `json:"creationTimestamp"`
	Labels            map[string]any `json:"labels"`
	Annotations       map[string]any `json:"annotations"`
	OwnerReferences   []any          `json:"ownerReferences"`
}

func (m *slimMetadata) toMap() map[string]any {
	out := map[string]any{}
	putPtr(out, "name", m.Name)
	putPtr(out, "namespace", m.Namespace)
	putPtr(out, "uid", m.UID)
	putPtr(out, "resourceVersion", m.ResourceVersion)
	putPtr(out, "generation", m.Generation)
	putPtr(out, "creationTimestamp", m.CreationTimestamp)
	put(out, "labels", m.Labels)
	put(out, "annotations", m.Annotations)
	if m.OwnerReferences != nil {
		out["ownerReferences"] = m.OwnerReferences
	}
	return out
}

type slimSpec struct {
	Project     string         `json:"project"`
	Source      map[string]any `json:"source"`
	Sources     []any          `json:"sources"`
	Destination map[string]any `json:"destination"`
	SyncPolicy  *struct {
		Automated map[string]any `json:"automated"`
	} `json:"syncPolicy"`
}

type slimStatus struct {
	Sync           map[string]any  `json:"sync"`
	Health         *slimHealth     `json:"health"`
	OperationState *slimOperation  `json:"operationState"`
	Resources      []*slimResource `json:"resources"`
	Conditions     []any           `json:"conditions"`
	ReconciledAt   *string         `json:"reconciledAt"`
	History        []*slimHistory  `json:"history"`
}

type slimHealth struct {
	Status *string `json:"status"`
}

type slimOperation struct {
	Phase      *string `json:"phase"`
	Message    *string `json:"message"`
	StartedAt  *string `json:"startedAt"`
	FinishedAt *string `json:"finishedAt"`
	RetryCount *int64  `json:"retryCount"`
}

type slimResource struct {
	Status          *string `json:"status"`
	RequiresPruning *bool   `json:"requiresPruning"`
	// ArgoGroup and AppKind say, without decoding a string, whether the
	// entry is an Application: the child of an app of apps.
	ArgoGroup equalsJSON[argoGroup]       `json:"group"`
	AppKind   equalsJSON[applicationKind] `json:"kind"`
}

func (r *slimResource) isApplication() bool {
	return r != nil && bool(r.ArgoGroup.yes) && bool(r.AppKind.yes)
}

// slimChild is an entry of status.resources with its names.
type slimChild struct {
	Group, Kind, Namespace, Name string
	SyncWave                     *int64 `json:"syncWave"`
	Hook                         *bool  `json:"hook"`
}

// equalsJSON decodes a JSON string into whether it equals W's value,
// allocating nothing. Any other type than a string (or null) is an error,
// as for a string field: Convert reads the field as a string and says it
// could not, so the whole object must reach it.
type equalsJSON[W interface{ want() string }] struct{ yes bool }

func (e *equalsJSON[W]) UnmarshalJSON(b []byte) error {
	var w W
	if len(b) == 0 || b[0] != '"' {
		if string(b) == "null" {
			return nil
		}
		return errNotAString
	}
	if bytes.IndexByte(b, '\\') >= 0 { // escaped: rare, worth a decode
		var str string
		err := json.Unmarshal(b, &str)
		e.yes = err == nil && str == w.want()
		return err
	}
	e.yes = len(b) == len(w.want())+2 && string(b[1:len(b)-1]) == w.want()
	return nil
}

var errNotAString = errors.New("want a string")

type argoGroup struct{}

func (argoGroup) want() string { return "argoproj.io" }

type applicationKind struct{}

func (applicationKind) want() string { return "Application" }

type slimHistory struct {
	ID *int64 `json:"id"`
}

// toMap rebuilds the object from what was kept, with absent fields absent.
// again holds status.resources with names, for an app of apps and a
// running sync.
func (a *slimApp) toMap(again slimNames, running bool) map[string]any {
	children := again.Status.Resources
	obj := map[string]any{"apiVersion": a.APIVersion, "kind": a.Kind}
	if a.Metadata != nil {
		obj["metadata"] = a.Metadata.toMap()
	}
	if len(a.Operation) > 0 && !bytes.Equal(a.Operation, []byte("null")) {
		obj["operation"] = map[string]any{}
	}
	if s := a.Spec; s != nil {
		spec := map[string]any{"project": s.Project}
		put(spec, "source", s.Source)
		put(spec, "destination", s.Destination)
		if s.Sources != nil {
			spec["sources"] = s.Sources
		}
		if s.SyncPolicy != nil {
			policy := map[string]any{}
			put(policy, "automated", s.SyncPolicy.Automated)
			spec["syncPolicy"] = policy
		}
		obj["spec"] = spec
	}
	if st := a.Status; st != nil {
		status := map[string]any{}
		put(status, "sync", st.Sync)
		if st.Health != nil {
			health := map[string]any{}
			putPtr(health, "status", st.Health.Status)
			status["health"] = health
		}
		if op := st.OperationState; op != nil {
			os := map[string]any{}
			putPtr(os, "phase", op.Phase)
			putPtr(os, "message", op.Message)
			putPtr(os, "startedAt", op.StartedAt)
			putPtr(os, "finishedAt", op.FinishedAt)
			putPtr(os, "retryCount", op.RetryCount)
			if running {
				var results []any
				for _, r := range again.Status.OperationState.SyncResult.Resources {
					m := map[string]any{}
					putPtr(m, "syncPhase", r.SyncPhase)
					results = append(results, m)
				}
				os["syncResult"] = map[string]any{"resources": results}
			}
			status["operationState"] = os
		}
		if st.Resources != nil {
			res := make([]any, len(st.Resources))
			for i, r := range st.Resources {
				if r == nil {
					continue // a null entry stays null: Convert reports it
				}
				m := map[string]any{}
				putPtr(m, "status", r.Status)
				putPtr(m, "requiresPruning", r.RequiresPruning)
				if (running || r.isApplication()) && i < len(children) {
					c := children[i]
					m["group"], m["kind"], m["namespace"], m["name"] = c.Group, c.Kind, c.Namespace, c.Name
					putPtr(m, "syncWave", c.SyncWave)
					putPtr(m, "hook", c.Hook)
				}
				res[i] = m
			}
			status["resources"] = res
		}
		if st.Conditions != nil {
			status["conditions"] = st.Conditions
		}
		putPtr(status, "reconciledAt", st.ReconciledAt)
		if st.History != nil {
			hs := make([]any, len(st.History))
			for i, h := range st.History {
				if h == nil {
					continue
				}
				m := map[string]any{}
				putPtr(m, "id", h.ID)
				hs[i] = m
			}
			status["history"] = hs
		}
		obj["status"] = status
	}
	return obj
}

func put(m map[string]any, k string, v map[string]any) {
	if v != nil {
		m[k] = v
	}
}

func putPtr[T any](m map[string]any, k string, v *T) {
	if v != nil {
		m[k] = *v
	}
}
